"""Where a release folder keeps its files: every module that reads or writes a release asks here."""

DATA_DIR = "data"  # the Parquet data files of every split
