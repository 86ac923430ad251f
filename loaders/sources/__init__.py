"""The built-in sources, one module each (see core/sources.py for what a source decides)."""
