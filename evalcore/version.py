"""The version of CBIR Lens, in a module of its own: any module may read it without importing the package."""

__version__ = "0.2.0"
