"""The export directory, read and written in one place: the row codec (``codec``), the manifest
(``manifest``), the data files (``datafiles``), the directory's file names (``layout``) and the
import journal (``journal``).

Layer: format. Imports only the core modules (errors, model, url, validate, resources) and itself.
"""
