"""The toolkit's own version, written into manifests."""

from importlib.metadata import PackageNotFoundError, version

try:
    TOOLKIT_VERSION = version("sob-curation-toolkit")
except PackageNotFoundError:  # running from a source checkout without an install
    TOOLKIT_VERSION = "0.0.0+source"
