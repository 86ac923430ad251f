"""The rules on a value and its field, one module per family; `validation/field_checks.py` runs them over a
record's located values."""
