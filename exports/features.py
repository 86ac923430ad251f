"""The `datasets` features of a release config, and the Arrow schema that carries them.

`datasets` writes its features into every data file's schema metadata (key `huggingface`) and reads them
back from there and from the card's `dataset_info`; a file without them has its types inferred. Release
files carry the same metadata `datasets` itself writes (`Features.arrow_schema`), built from the fixed
column list of exports/columns.py, so `load_dataset` yields exactly the declared features.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from exports import page_images as page_images_mod
from exports.columns import arrow_schema


def release_features(source: str, page_images: bool = False) -> Any:
    """The `datasets.Features` of a source's release config (one per column, in column order), with the
    `page_image` column last when `page_images` (exports/page_images.py)."""
    from datasets import Features  # heavy import, only when a release is written or checked

    features = Features.from_arrow_schema(arrow_schema(source))
    if page_images:
        features[page_images_mod.COLUMN] = page_images_mod.feature()
    return features


def release_schema(source: str, page_images: bool = False) -> pa.Schema:
    """The data files' Arrow schema: the fixed columns (`record_id` never null) plus the `huggingface`
    features metadata, exactly as `datasets` writes it."""
    schema = arrow_schema(source)
    if page_images:
        schema = schema.append(pa.field(page_images_mod.COLUMN, page_images_mod.arrow_type()))
    return schema.with_metadata(release_features(source, page_images).arrow_schema.metadata)


def features_yaml(source: str, page_images: bool = False) -> list[dict[str, Any]]:
    """The features as the card's `dataset_info.features` list (the form `datasets` reads back)."""
    return release_features(source, page_images)._to_yaml_list()
