"""Measuring the harness: bundled task suites, automatic graders, harness on versus off."""
