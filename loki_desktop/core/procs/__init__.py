"""Child processes that never outlive Loki: process groups, a supervisor and a guard."""
