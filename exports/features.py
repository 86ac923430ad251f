"""The `datasets` features of a release config, and the Arrow schema that carries them.

`datasets` writes its features into every data file's schema metadata (key `huggingface`) and reads them
back from there and from the card's `dataset_info`; a file without them has its types inferred. Release
files carry the same metadata `datasets` itself writes (`Features.arrow_schema`), built from the fixed
column list of exports/columns.py, so `load_dataset` yields exactly the declared features.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from exports.columns import arrow_schema


def release_features(source: str) -> Any:
    """The `datasets.Features` of a source's release config (one per column, in column order)."""
    from datasets import Features  # heavy import, only when a release is written or checked

    return Features.from_arrow_schema(arrow_schema(source))


def release_schema(source: str) -> pa.Schema:
    """The data files' Arrow schema: the fixed columns (`record_id` never null) plus the `huggingface`
    features metadata, exactly as `datasets` writes it."""
    hf_metadata = release_features(source).arrow_schema.metadata
    return arrow_schema(source).with_metadata(hf_metadata)


def features_yaml(source: str) -> list[dict[str, Any]]:
    """The features as the card's `dataset_info.features` list (the form `datasets` reads back)."""
    return release_features(source)._to_yaml_list()
