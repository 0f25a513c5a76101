"""The doc generators: docs/cli.md (:mod:`.clidoc`) and docs/types.md (:mod:`.typesdoc`), from the
code and the dialect tables. Run from the repository root: ``python -m tools.docgen.clidoc`` (write)
or ``python -m tools.docgen.clidoc --check`` (exit 1 when the committed page is out of date)."""
