"""Packages of the wheel: loki_desktop/, plus the top-level skills/ and resources/ mapped into it.

The design card keeps the built-in skills and the resources at the top of the repository; an
installed app finds them as loki_desktop/skills and loki_desktop/resources (importlib.resources).
Everything else about the build is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

MAPPED = {"loki_desktop.skills": "skills", "loki_desktop.resources": "resources"}

packages = find_namespace_packages(include=["loki_desktop", "loki_desktop.*"])
for package, folder in MAPPED.items():
    packages += [package, *(f"{package}.{sub}" for sub in find_namespace_packages(where=folder))]

setup(packages=packages, package_dir=MAPPED)
