__version__ = "0.1.0"
FORMAT_VERSION = "1.0"
