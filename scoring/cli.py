"""`python -m scoring`: score SOB response files or predictions on a release, and the curation numbers
(thin over the library)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from core.llm.types import LLMCredentialsError, LLMError
from core.progress import set_output
from core.redaction import redact
from core.sources import source_names
from core.store import WorkspaceBusyError
from core.version import TOOLKIT_VERSION
from scoring.aggregate import DEFAULT_BOOTSTRAP_SAMPLES
from scoring.curation import (
    OUTPUT_TOKEN_BUDGET,
    array_order_warnings,
    draft_agreement,
    output_budget,
    summarize_agreement,
)
from scoring.evaluate import ModelResult, evaluate, score_models
from scoring.flags import DEFAULT_MIN_CONSISTENCY, ambiguity, load_samples, read_samples, save_flags, save_samples
from scoring.help_format import examples_formatter
from scoring.inputs import Predictions, Release, ScoringInputError, load_all_predictions, load_release
from scoring.sampling import DEFAULT_TEMPERATURE
from scoring.sob import CATEGORIES, METRICS, OPTION_FLAGS, SOB_FIELD, Modality, ScoringOptions
from scoring.sob_files import (
    ResponseFileError,
    build_summary,
    infer_modality,
    output_name,
    response_files,
    score_file,
    write_outputs,
)
from scoring.suspects import (
    DEFAULT_AGREE,
    DEFAULT_MAX_STED,
    DEFAULT_MAX_VALUE_ACCURACY,
    DEFAULT_MIN_MODELS,
    find_suspects,
)

LISTED = 20


def _ratio(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


EXAMPLES = """examples:
  python -m scoring --responses tests/data/sob_eval/images_responses --output-root evaluation
  python -m scoring --release workspace/releases/default/0.1.0 --predictions gpt-4o.jsonl --predictions gemini.jsonl
  python -m scoring --release DIR --predictions preds/ --output-root evaluation
  python -m scoring --release DIR --curation --workspace workspace
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scoring",
        description="Score model outputs with SOB's evaluator, exactly (its metrics, Draft 7, hardening, "
        "coverage gates, complexity-weighted means and bootstrap CIs): SOB response files as they are "
        "(--responses), or predictions on a release (--release, --predictions); with ExtractBench field "
        "presets and STED; and report curation numbers: suspect ground truths, draft-to-final agreement, "
        "output budget, array order, ambiguous questions.",
        epilog=EXAMPLES,
        formatter_class=examples_formatter(EXAMPLES),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {TOOLKIT_VERSION}")
    parser.add_argument(
        "--responses",
        type=Path,
        action="append",
        default=[],
        metavar="FILE_OR_DIR",
        help="SOB response JSONL files (or folders of them), scored against the schema and ground truth each "
        "line carries; no release needed (repeatable)",
    )
    parser.add_argument(
        "--output-root",
        type=Path,
        metavar="DIR",
        help="write SOB's eval_records.jsonl and eval_summary.json to DIR/<modality>/<model>/",
    )
    parser.add_argument(
        "--modality",
        choices=["auto", "text", "image", "audio"],
        default="auto",
        help="with --responses: the responses' modality (auto: from the file's path, as SOB)",
    )
    parser.add_argument(
        "--release", type=Path, metavar="DIR", help="a release folder (workspace/releases/<config>/<V>)"
    )
    parser.add_argument(
        "--predictions",
        type=Path,
        action="append",
        default=[],
        metavar="FILE_OR_DIR",
        help="JSONL predictions (a file or a folder of *.jsonl), SOB response format or "
        "{record_id, response[, model_id]}; repeat for more models",
    )
    refine = parser.add_argument_group(
        "refinements of SOB's rules (off by default: the default is SOB's evaluator exactly)"
    )
    refine.add_argument(
        "--parse-text", action="store_true", help="parse a response given as text with json.loads (SOB: text fails)"
    )
    refine.add_argument(
        "--nullable-types",
        action="store_true",
        help="type safety follows nullable types, anyOf/allOf, $ref, free-form objects and maps, arrays "
        "without items, enum and untyped leaves (SOB: one declared type via properties/items)",
    )
    refine.add_argument(
        "--empty-containers",
        action="store_true",
        help="empty objects and arrays are leaves, so {} against {} scores 1 (SOB: no leaf, 0)",
    )
    refine.add_argument(
        "--numeric-faithfulness",
        action="store_true",
        help="values compared as JSON: 3 and 3.0 agree (SOB faithfulness 0.667), true is not 1, and a "
        "missing key scores 0 even when the truth is null (SOB: 1)",
    )
    refine.add_argument(
        "--count-missing",
        action="store_true",
        help="with --release: a record without a prediction scores as a parse failure (SOB: not scored)",
    )
    parser.add_argument("--split", action="append", help="score only this split (repeatable; default all)")
    parser.add_argument(
        "--bootstrap", type=int, default=DEFAULT_BOOTSTRAP_SAMPLES, help="bootstrap samples for the 95%% CIs"
    )
    parser.add_argument("--seed", type=int, default=42, help="bootstrap seed (default 42)")
    parser.add_argument("--output", type=Path, metavar="FILE", help="write the full report as JSON here")
    parser.add_argument("--json", action="store_true", help="print the full report as JSON instead of tables")
    parser.add_argument("--quiet", action="store_true", help="no progress bars (drawn only on a terminal anyway)")
    parser.add_argument("--verbose", action="store_true", help="show the log lines of the libraries used (httpx)")
    sus = parser.add_argument_group("suspect ground truths (with --predictions from several reference models)")
    sus.add_argument(
        "--suspects",
        action="store_true",
        help="list records where the models agree with each other and disagree with the ground truth",
    )
    sus.add_argument("--min-models", type=_positive, default=DEFAULT_MIN_MODELS, help="agreeing models needed (3)")
    sus.add_argument("--agree", type=_ratio, default=DEFAULT_AGREE, help="STED at which two models agree (0.9)")
    sus.add_argument(
        "--max-value-accuracy",
        type=_ratio,
        default=DEFAULT_MAX_VALUE_ACCURACY,
        help="the consensus disagrees with the truth below this value accuracy (0.5)",
    )
    sus.add_argument(
        "--max-sted", type=_ratio, default=DEFAULT_MAX_STED, help="... and below this STED to the truth (0.8)"
    )
    sus.add_argument(
        "--send-back",
        action="store_true",
        help="with --suspects and --workspace: move accepted suspects back to their curators (needs_revision, "
        "reason suspect_ground_truth; shown in Label Studio when LABEL_STUDIO_URL/LABEL_STUDIO_API_KEY are set)",
    )
    cur = parser.add_argument_group("curation numbers")
    cur.add_argument(
        "--curation",
        action="store_true",
        help="output budget and array-order checks of the release; with --workspace also draft-to-final agreement",
    )
    cur.add_argument("--budget", type=_positive, default=OUTPUT_TOKEN_BUDGET, help="output token budget (2048)")
    cur.add_argument(
        "--workspace",
        type=Path,
        help="the curation workspace: drafts are read from its store, suspect and ambiguity flags are written to it",
    )
    amb = parser.add_argument_group("ambiguous questions (repeated drafts at a temperature above zero)")
    amb.add_argument(
        "--ambiguity",
        action="store_true",
        help="STED consistency of each source item's repeated "
        "drafts; low consistency is flagged (needs --workspace and --source)",
    )
    amb.add_argument("--source", choices=source_names(), help="the source of --ambiguity")
    amb.add_argument(
        "--draft-samples",
        type=Path,
        metavar="FILE",
        help="JSONL {source_id, ground_truth[, model, temperature]} to add to the store first",
    )
    amb.add_argument(
        "--min-consistency",
        type=_ratio,
        default=DEFAULT_MIN_CONSISTENCY,
        help="flag a source item whose drafts agree less than this (0.8)",
    )
    amb.add_argument(
        "--sample-drafts",
        type=int,
        metavar="N",
        help="first ask the draft model N more times (N >= 2) per drafted source item at --temperature "
        "(each sample cached in the store: a re-run pays nothing)",
    )
    amb.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE, help="sampling temperature (0.7)")
    amb.add_argument("--sample-limit", type=_positive, help="sample at most this many source items")
    amb.add_argument("--llm", choices=["gemini", "openai"], default="gemini", help="draft model backend (gemini)")
    amb.add_argument("--draft-model", help="draft model (default gemini-2.5-flash / gpt-4o-mini)")
    amb.add_argument(
        "--llm-base-url", help="send LLM calls to this endpoint (else GOOGLE_GEMINI_BASE_URL / OPENAI_BASE_URL)"
    )
    return parser


def _check(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    if args.ambiguity:
        if args.workspace is None or args.source is None:
            parser.error("--ambiguity needs --workspace and --source")
        if args.sample_drafts is not None and args.sample_drafts < 2:
            parser.error("--sample-drafts needs N >= 2: consistency compares repeats")
        if args.sample_drafts is not None and not args.temperature > 0:
            parser.error("--temperature must be above 0: repeats at 0 would not vary")
        return
    if args.bootstrap < 0:
        parser.error("--bootstrap must be >= 0")
    if args.responses:
        if args.release is not None or args.predictions or args.suspects or args.curation:
            parser.error(
                "--responses scores SOB response files on their own: no --release, --predictions, "
                "--suspects or --curation with it"
            )
        return
    if args.release is None:
        parser.error("--release DIR is required (or use --responses FILE_OR_DIR, or --ambiguity)")
    if not args.predictions and not args.curation:
        parser.error("give --predictions FILE to score, or --curation for the curation numbers")
    if args.suspects and not args.predictions:
        parser.error("--suspects needs --predictions from several reference models")
    if args.send_back and not (args.suspects and args.workspace is not None):
        parser.error("--send-back needs --suspects and --workspace")


def _fmt(estimate: dict[str, float]) -> str:
    return f"{estimate['mean']:.3f} [{estimate['ci95_low']:.3f}, {estimate['ci95_high']:.3f}]"


def _print_scores(report: dict[str, Any]) -> None:
    print(f"release {report['release']['path']} ({report['modality']}), {report['records']} records")
    for model in report["models"]:
        print(
            f"\n{model['model']}: {model['n']} records, {model['missing_predictions']} without a prediction, "
            f"{model['unknown_records']} predictions for unknown records, "
            f"{model['unweighted_records']} without a complexity (weight 0)"
        )
        print(f"  {'metric':<28} {'mean [95% CI]':<26} {'weighted mean [95% CI]'}")
        for key, name in [*METRICS.items(), ("json_parse_success", "JSON Parse Success")]:
            print(f"  {name:<28} {_fmt(model['overall'][key]):<26} {_fmt(model['weighted'][key])}")
        for name in CATEGORIES:
            print(f"  {name:<28} {_fmt(model['overall'][name]):<26} {_fmt(model['weighted'][name])}")
        if model.get("fields"):
            f = model["fields"]
            print(
                f"  fields (evaluation_config): accuracy {f['field_accuracy']:.3f} over {f['fields']} fields; "
                f"missing {f['missing']}, null {f['null_predicted']}, hallucinated {f['hallucinated']}, "
                f"extra {f['extra']}"
            )
    if report["rejected_lines"]:
        print(f"\n{len(report['rejected_lines'])} prediction lines rejected:")
        for r in report["rejected_lines"][:LISTED]:
            print(f"  {r['file']}:{r['line']}: {r['reason']}")


def _options(args: argparse.Namespace) -> ScoringOptions:
    return ScoringOptions(**{name: getattr(args, name) for name in OPTION_FLAGS})


def _fmt_sob(estimate: dict[str, Any]) -> str:
    return f"{estimate['mean']:.3f} [{estimate['ci95_low']:.3f}, {estimate['ci95_high']:.3f}]"


def _print_sob_summary(name: str, summary: dict[str, Any], folder: Path | None) -> None:
    quality = summary["data_quality"]
    print(
        f"\n{name} ({', '.join(map(str, summary['model_ids']))}): {summary['num_records']} records from "
        f"{summary['response_file']}; {quality['json_parse_fail_count']} not parsed, "
        f"{quality['malformed_jsonl_line_count']} lines unusable"
    )
    overall, weighted = summary["summary"]["overall"], summary["summary"]["overall_weighted"]
    print(f"  {'metric':<28} {'mean [95% CI]':<26} {'weighted mean [95% CI]'}")
    for key, label in [*METRICS.items(), ("json_parse_success", "JSON Parse Success")]:
        field = SOB_FIELD[key]
        print(f"  {label:<28} {_fmt_sob(overall['metrics'][field]):<26} {_fmt_sob(weighted['metrics'][field])}")
    for category in CATEGORIES:
        print(
            f"  {category:<28} {_fmt_sob(overall['category_scores'][category]):<26} "
            f"{_fmt_sob(weighted['category_scores'][category])}"
        )
    for line in summary.get("rejected_lines", [])[:LISTED]:
        print(f"  refused {line}")
    for line in summary.get("duplicate_lines", [])[:LISTED]:
        print(f"  duplicate {line}")
    if folder is not None:
        print(f"  wrote {folder / 'eval_records.jsonl'} and {folder / 'eval_summary.json'}")


OUTPUT_FILES = ("eval_records.jsonl", "eval_summary.json")  # what write_outputs writes in each folder


def refuse_overwriting_inputs(outputs: list[Path], inputs: list[Path]) -> None:
    """An output path that is an input file (the same path, a link to it, or the same file) is refused before
    anything runs: writing it would destroy what is being scored."""
    for output in outputs:
        for source in inputs:
            same = output.resolve() == source.resolve()
            if not same and output.exists() and source.exists():
                same = os.path.samefile(output, source)
            if same:
                raise ScoringInputError(
                    f"the output {output} is the input {source}: it would be overwritten; choose another "
                    "--output / --output-root"
                )


def _input_files(args: argparse.Namespace) -> list[Path]:
    """The files a run reads, which no output may replace."""
    paths: list[Path] = [*args.responses, *args.predictions]
    if args.release is not None:
        paths.append(args.release)
    files: list[Path] = []
    for path in paths:
        files += sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    return files


def _unique_names(wanted: dict[str, str], parents: dict[str, str]) -> dict[str, str]:
    """Output folder names: SOB's, or with the parent's name in front where two would be the same."""
    counts = Counter(wanted.values())
    names = {key: name if counts[name] == 1 else f"{parents[key]}__{name}" for key, name in wanted.items()}
    clashing = sorted(key for key, name in names.items() if list(names.values()).count(name) > 1)
    if clashing:
        raise ScoringInputError(f"these would write to one output folder: {', '.join(clashing)}")
    return names


def _score_responses(args: argparse.Namespace) -> dict[str, Any]:
    """SOB's evaluate.py, file by file: every file is scored before anything is written."""
    options = _options(args)
    files = response_files(args.responses)
    if args.output_root is not None:  # checked before the scoring: the outputs must not replace an input
        modalities = {file.as_posix(): infer_modality(file, args.modality) for file in files}
        planned = _unique_names(
            {key: output_name(Path(key), modality) for key, modality in modalities.items()},
            {key: Path(key).parent.name for key in modalities},
        )
        folders = [args.output_root / modalities[key] / name for key, name in planned.items()]
        refuse_overwriting_inputs([f / n for f in folders for n in OUTPUT_FILES], files)
    scored = []
    for file in files:
        result = score_file(file, infer_modality(file, args.modality), options)
        if not result.records:
            reason = "it is empty" if not result.rejections else f"{len(result.rejections)} lines refused"
            first = f"; first: {result.rejections[0]}" if result.rejections else ""
            raise ResponseFileError(f"no record to score in {file}: {reason}{first}")
        scored.append(result)
    keys = {r.path.as_posix(): r for r in scored}
    names = _unique_names(
        {key: output_name(r.path, r.modality) for key, r in keys.items()},
        {key: r.path.parent.name for key, r in keys.items()},
    )
    report: dict[str, Any] = {"options": [n for n, on in vars(options).items() if on], "files": []}
    for result in scored:
        summary = build_summary(
            result.path.as_posix(),
            result.records,
            result.modality,
            malformed_lines=result.malformed_lines,
            rejections=result.rejections,
            duplicates=result.duplicates,
            samples=args.bootstrap,
            seed=args.seed,
        )
        folder = None
        name = names[result.path.as_posix()]
        if args.output_root is not None:
            folder = args.output_root / result.modality / name
            write_outputs(folder, result.records, summary, result.modality)
        report["files"].append({"name": name, "output": str(folder or ""), "summary": summary})
    return report


def _release_outputs(root: Path, modality: Modality, results: list[ModelResult], samples: int, seed: int) -> list[Path]:
    """SOB's two files per model for a release: DIR/<modality>/<model>/, named by the model id's last
    part as SOB names its folders (`microsoft/phi-4` -> `phi-4`), by more of it where two collide."""
    names = _model_folder_names(results)
    written = []
    for result in results:
        folder = root / modality / names[result.model]
        summary = build_summary(f"{result.model} predictions", result.records, modality, samples=samples, seed=seed)
        write_outputs(folder, result.records, summary, modality)
        written.append(folder)
    return written


def _model_folder_names(results: list[ModelResult]) -> dict[str, str]:
    return _unique_names(
        {r.model: r.model.split("/")[-1] for r in results},
        {r.model: "_".join(r.model.split("/")[:-1]) or "model" for r in results},
    )


def _suspects(args: argparse.Namespace, release: Release, predictions: Predictions) -> dict[str, Any]:
    found = find_suspects(
        {rid: r.ground_truth for rid, r in release.records.items()},
        predictions.by_model,
        min_models=args.min_models,
        agree=args.agree,
        max_value_accuracy=args.max_value_accuracy,
        max_sted=args.max_sted,
    )
    result: dict[str, Any] = {"models": sorted(predictions.by_model), "suspects": [s.as_dict() for s in found]}
    if args.workspace is not None:
        from core.store import Store

        with Store.open(args.workspace) as store:
            result["flags_saved"] = save_flags(
                store.con, "suspect", release.source, {s.record_id: s.as_dict() for s in found}
            )
        if args.send_back:
            from scoring.send_back import send_back_suspects

            result["sent_back"] = send_back_suspects(args.workspace, release.source, found)
    return result


def _curation(args: argparse.Namespace, release: Release) -> dict[str, Any]:
    records = list(release.records.values())
    checks, tokenizer = output_budget(((r.record_id, r.ground_truth) for r in records), args.budget)
    warnings = [w for r in records for w in array_order_warnings(r.record_id, r.ground_truth, r.context)]
    result: dict[str, Any] = {
        "output_budget": {
            "budget": args.budget,
            "tokenizer": tokenizer,
            "max_tokens": max((c.tokens for c in checks), default=0),
            "over_budget": [vars(c) for c in checks if c.over_budget],
        },
        "array_order_warnings": [vars(w) for w in warnings],
    }
    if args.workspace is not None:
        from authoring.drafts import load_drafts
        from core.store import Store

        with Store.open(args.workspace) as store:
            drafts = load_drafts(store.con, release.source, status="drafted")
        rows = []
        for r in records:
            draft = drafts.get(r.source_id or "")
            if draft is not None and draft.ground_truth is not None:
                rows.append(
                    draft_agreement(r.record_id, r.ground_truth, draft.ground_truth, draft.question == r.question)
                )
        result["draft_agreement"] = summarize_agreement(rows, len(records) - len(rows)) | {
            "records": [vars(row) for row in rows]
        }
    return result


def _print_curation(result: dict[str, Any]) -> None:
    budget = result["output_budget"]
    print(
        f"\noutput budget {budget['budget']} tokens ({budget['tokenizer']}): longest ground truth "
        f"{budget['max_tokens']}, {len(budget['over_budget'])} over"
    )
    for c in budget["over_budget"][:LISTED]:
        print(f"  {c['record_id']}: {c['tokens']} tokens")
    print(f"array order: {len(result['array_order_warnings'])} warnings")
    for w in result["array_order_warnings"][:LISTED]:
        print(f"  {w['record_id']} {w['path']}: {w['reason']}")
    agreement = result.get("draft_agreement")
    if agreement:
        va, st = agreement["mean_value_accuracy"], agreement["mean_sted"]
        print(
            f"draft-to-final agreement over {agreement['records_with_draft']} drafted records "
            f"({agreement['records_without_draft']} without a draft): value accuracy "
            f"{'-' if va is None else f'{va:.3f}'}, STED {'-' if st is None else f'{st:.3f}'}, "
            f"{agreement['unchanged']} unchanged, {agreement['question_kept']} kept the draft's question"
        )


def _sample(args: argparse.Namespace, store: Any) -> Any:
    from authoring.drafts import load_drafts
    from core.llm.cache import LLMCache
    from core.llm.settings import DEFAULT_DRAFT_MODEL, LLMSettings, make_client
    from scoring.sampling import sample_drafts

    drafted = load_drafts(store.con, args.source, status="drafted")
    items = [item for sid, item in sorted(store.source_items(args.source).items()) if sid in drafted]
    if args.sample_limit is not None:
        items = items[: args.sample_limit]
    settings = LLMSettings(
        backend=args.llm, model=args.draft_model or DEFAULT_DRAFT_MODEL[args.llm], base_url=args.llm_base_url
    )
    try:
        client = make_client(settings, cache=LLMCache(store.con))
    except LLMCredentialsError as exc:  # this command's own ways out, not build_split's `--judge heuristic`
        raise exc.with_advice(
            "or give drafts sampled elsewhere with --draft-samples FILE, or --llm openai (OPENAI_API_KEY, or "
            "--llm-base-url for a local server)"
        ) from exc
    return sample_drafts(client, items, n=args.sample_drafts, temperature=args.temperature)


def _ambiguity(args: argparse.Namespace) -> dict[str, Any]:
    from core.store import Store

    result: dict[str, Any] = {"source": args.source, "min_consistency": args.min_consistency}
    with Store.open(args.workspace) as store:
        if args.draft_samples is not None:
            samples, rejections = read_samples(args.draft_samples)
            result["samples_added"] = save_samples(store.con, args.source, samples)
            result["rejected_lines"] = [vars(r) for r in rejections]
        if args.sample_drafts is not None:
            sampled = _sample(args, store)
            result["samples_drawn"] = save_samples(store.con, args.source, sampled.samples)
            result["samples_failed"] = dict(sampled.failures)
        found = ambiguity(load_samples(store.con, args.source), args.min_consistency)
        flags = {
            sid: {"consistency": c.mean, "min_pair": c.min, "pairs": c.pairs} for sid, c in found["flagged"].items()
        }
        save_flags(store.con, "ambiguous", args.source, flags)
        if flags:  # shown to the curators when a Label Studio is configured (LABEL_STUDIO_URL / _API_KEY)
            from authoring.labelstudio.runs import label_studio_for_run
            from scoring.send_back import show_ambiguity_flags

            with label_studio_for_run(args.workspace) as session:
                if session is not None:
                    result["shown_in_label_studio"] = show_ambiguity_flags(store, session, args.source, flags)
    result |= {"scored": len(found["scored"]), "flagged": flags, "too_few_samples": found["too_few_samples"]}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    set_output(quiet=args.quiet, verbose=args.verbose)
    _check(args, parser)
    report: dict[str, Any] = {}
    try:
        if args.output is not None:
            refuse_overwriting_inputs([args.output], _input_files(args))
        if args.responses:
            report = _score_responses(args)
        elif args.ambiguity:
            report["ambiguity"] = _ambiguity(args)
        else:
            release = load_release(args.release, args.split)
            predictions = load_all_predictions(args.predictions) if args.predictions else Predictions()
            if args.predictions:
                results = score_models(release, predictions, _options(args))
                report |= evaluate(
                    release,
                    predictions,
                    samples=args.bootstrap,
                    seed=args.seed,
                    options=_options(args),
                    results=results,
                )
                if args.output_root is not None:
                    names = _model_folder_names(results)
                    planned = [
                        args.output_root / release.modality / names[r.model] / n for r in results for n in OUTPUT_FILES
                    ]
                    refuse_overwriting_inputs(planned, _input_files(args))
                    written = _release_outputs(args.output_root, release.modality, results, args.bootstrap, args.seed)
                    report["outputs"] = [str(folder) for folder in written]
            if args.suspects:
                report["suspects"] = _suspects(args, release, predictions)
            if args.curation:
                report["curation"] = _curation(args, release)
        if args.output is not None:
            args.output.parent.mkdir(parents=True, exist_ok=True)
            args.output.write_text(
                json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
            )
    except (ScoringInputError, ResponseFileError, OSError, WorkspaceBusyError, LLMError) as exc:
        print(f"error: {redact(str(exc))}", file=sys.stderr)  # LLMError: no key for the draft model, say what to set
        return 2
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False, default=str))
        return 0
    for scored in report.get("files", []):
        _print_sob_summary(scored["name"], scored["summary"], Path(scored["output"]) if scored["output"] else None)
    if "models" in report:
        _print_scores(report)
        for folder in report.get("outputs", []):
            print(f"wrote {folder}/eval_records.jsonl and eval_summary.json")
    if "suspects" in report:
        suspects = report["suspects"]["suspects"]
        print(f"\n{len(suspects)} suspect records (models agreeing with each other, not with the ground truth):")
        for s in suspects[:LISTED]:
            print(
                f"  {s['record_id']}: {len(s['models'])}/{s['usable_responses']} models agree; value accuracy "
                f"{s['value_accuracy']:.2f}, STED {s['sted']:.2f}; paths {', '.join(s['differing_paths'][:5])}"
            )
    if "curation" in report:
        _print_curation(report["curation"])
    if "ambiguity" in report:
        a = report["ambiguity"]
        print(
            f"ambiguity ({a['source']}): {a['scored']} source items with repeated drafts, {len(a['flagged'])} "
            f"below consistency {a['min_consistency']}; {len(a['too_few_samples'])} with fewer than 2 drafts"
        )
        for sid, f in list(a["flagged"].items())[:LISTED]:
            print(f"  {sid}: consistency {f['consistency']:.3f}")
    return 0
