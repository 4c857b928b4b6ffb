"""The package's version: one source for the package, its model files and its metadata."""

__version__ = "0.1.0"
