"""The store's tables, as versioned migrations."""

from __future__ import annotations

from core.revisions import TABLE_SQL as REVISIONS_TABLE_SQL

# Versioned migrations: append only, never edit an applied one.
MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE source_items (
            source VARCHAR NOT NULL,
            source_id VARCHAR NOT NULL,
            item JSON NOT NULL,
            content_hash VARCHAR NOT NULL,
            loaded_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (source, source_id)
        );
        CREATE TABLE records (
            record_id VARCHAR PRIMARY KEY,
            source VARCHAR NOT NULL,
            source_id VARCHAR NOT NULL,
            state VARCHAR NOT NULL,
            record JSON NOT NULL,
            content_hash VARCHAR NOT NULL,
            reasons JSON,
            validation JSON,
            judge JSON,
            updated_at TIMESTAMPTZ NOT NULL
        );
        CREATE SEQUENCE event_seq START 1;
        CREATE TABLE events (
            event_id BIGINT DEFAULT nextval('event_seq') PRIMARY KEY,
            logged_at TIMESTAMPTZ NOT NULL,
            source VARCHAR NOT NULL,
            source_id VARCHAR,
            record_id VARCHAR,
            stage VARCHAR NOT NULL,
            kind VARCHAR NOT NULL,
            from_state VARCHAR,
            to_state VARCHAR,
            reasons JSON,
            detail JSON
        );
        CREATE TABLE import_rejections (
            source VARCHAR NOT NULL,
            origin VARCHAR NOT NULL,
            line_no INTEGER NOT NULL,
            raw VARCHAR NOT NULL,
            reasons JSON NOT NULL,
            logged_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (source, origin, line_no)
        );
        CREATE TABLE split_assignments (
            record_id VARCHAR PRIMARY KEY,
            config VARCHAR NOT NULL,
            split VARCHAR NOT NULL,
            first_release VARCHAR NOT NULL
        );
        """,
    ),
    (
        2,
        """
        CREATE TABLE llm_cache (
            cache_key VARCHAR PRIMARY KEY,
            backend VARCHAR NOT NULL,
            model VARCHAR NOT NULL,
            prompt_version VARCHAR NOT NULL,
            response JSON NOT NULL,
            usage JSON,
            created_at TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE llm_usage (
            run_id VARCHAR NOT NULL,
            stage VARCHAR NOT NULL,
            backend VARCHAR NOT NULL,
            model VARCHAR NOT NULL,
            calls INTEGER NOT NULL,
            cache_hits INTEGER NOT NULL,
            input_tokens BIGINT NOT NULL,
            output_tokens BIGINT NOT NULL,
            cost_usd DOUBLE NOT NULL,
            recorded_at TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE batch_jobs (
            job_name VARCHAR PRIMARY KEY,
            stage VARCHAR NOT NULL,
            source VARCHAR NOT NULL,
            keys JSON NOT NULL,
            state VARCHAR NOT NULL,
            submitted_at TIMESTAMPTZ NOT NULL,
            finished_at TIMESTAMPTZ
        );
        """,
    ),
    (
        3,
        """
        CREATE TABLE IF NOT EXISTS drafts (
            source VARCHAR NOT NULL,
            source_id VARCHAR NOT NULL,
            status VARCHAR NOT NULL,
            reason VARCHAR,
            draft JSON NOT NULL,
            model VARCHAR NOT NULL,
            prompt_version VARCHAR NOT NULL,
            created_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (source, source_id)
        );
        """,
    ),
    (
        4,
        # Label Studio: projects per source, tasks per source item, and the push outbox that makes
        # a push safe against a crash between the request and the store update.
        """
        CREATE TABLE IF NOT EXISTS ls_projects (
            base_url VARCHAR NOT NULL,
            source VARCHAR NOT NULL,
            project_id BIGINT NOT NULL,
            title VARCHAR NOT NULL,
            config_hash VARCHAR NOT NULL,
            pull_checkpoint VARCHAR,
            updated_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (base_url, source)
        );
        CREATE TABLE IF NOT EXISTS ls_tasks (
            base_url VARCHAR NOT NULL,
            project_id BIGINT NOT NULL,
            source VARCHAR NOT NULL,
            source_id VARCHAR NOT NULL,
            task_id BIGINT NOT NULL,
            pushed_at TIMESTAMPTZ NOT NULL,
            draft_model VARCHAR,
            pushed_question VARCHAR,
            status VARCHAR NOT NULL,
            record_id VARCHAR,
            annotation_id BIGINT,
            annotation_updated_at VARCHAR,
            feedback VARCHAR,
            feedback_pending BOOLEAN NOT NULL DEFAULT false,
            updated_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (base_url, project_id, source_id)
        );
        CREATE TABLE IF NOT EXISTS ls_push_outbox (
            base_url VARCHAR NOT NULL,
            project_id BIGINT NOT NULL,
            source VARCHAR NOT NULL,
            source_id VARCHAR NOT NULL,
            batch_id VARCHAR NOT NULL,
            queued_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (base_url, project_id, source_id)
        );
        """,
    ),
    (
        5,
        # The residual-error audit (authoring/audit.py): one row per sampled accepted record per round,
        # the Label Studio task it became, and the reviewer's verdict once pulled.
        """
        CREATE TABLE IF NOT EXISTS audit_tasks (
            audit_id VARCHAR NOT NULL,
            source VARCHAR NOT NULL,
            round INTEGER NOT NULL,
            record_id VARCHAR NOT NULL,
            audited JSON NOT NULL,
            drawn_at TIMESTAMPTZ NOT NULL,
            base_url VARCHAR,
            project_id BIGINT,
            task_id BIGINT,
            verdict VARCHAR,
            corrected_answer JSON,
            notes VARCHAR,
            reviewer VARCHAR,
            annotation_id BIGINT,
            annotation_updated_at VARCHAR,
            reviewed_at TIMESTAMPTZ,
            sent_back BOOLEAN NOT NULL DEFAULT false,
            PRIMARY KEY (audit_id, round, record_id)
        );
        """,
    ),
    (
        6,
        # What the stages add to a record (core/derived.py), beside it: a stage no longer rewrites the record.
        "ALTER TABLE records ADD COLUMN IF NOT EXISTS derived JSON;",
    ),
    # Every version of a record's authored content, and the conflicts not applied (core/revisions.py).
    (7, REVISIONS_TABLE_SQL),
]
