"""Models: the first-run page, downloads (pull) and the marks that describe a model."""
