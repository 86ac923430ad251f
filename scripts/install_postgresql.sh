#!/usr/bin/env bash
# PostgreSQL for a team's Label Studio host (docs/team-label-studio.md): Debian's postgresql package, its
# cluster started, and a role and a database for Label Studio. Run it once on the host, as root or with sudo.
#
#   LABEL_STUDIO_DATABASE_PASSWORD=... bash scripts/install_postgresql.sh [DATABASE] [ROLE]
#
# DATABASE and ROLE default to label_studio. The role's password comes from LABEL_STUDIO_DATABASE_PASSWORD and
# reaches psql on its standard input, never a command line. Run again: nothing is made twice, and the role gets
# the password given. Afterwards start Label Studio with
#   python -m authoring.server --database postgresql://ROLE@127.0.0.1:5432/DATABASE   (password still in the env)
set -euo pipefail
DATABASE="${1:-label_studio}"
ROLE="${2:-label_studio}"
PORT="${PGPORT:-5432}"
: "${LABEL_STUDIO_DATABASE_PASSWORD:?set LABEL_STUDIO_DATABASE_PASSWORD to the password of the database role of Label Studio}"
for name in "$DATABASE" "$ROLE"; do
  if ! [[ "$name" =~ ^[a-z_][a-z0-9_]*$ ]]; then
    echo "error: $name: a database or role name here is lower-case letters, digits and _" >&2
    exit 2
  fi
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  echo "==> apt-get install postgresql (Debian's PostgreSQL server)"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends postgresql
fi
echo "==> starting PostgreSQL's cluster"
if [ -d /run/systemd/system ]; then
  $SUDO systemctl enable --now postgresql
else
  $SUDO service postgresql start  # a container without systemd
fi
until $SUDO runuser -u postgres -- pg_isready -q -p "$PORT"; do sleep 1; done
echo "==> role $ROLE and database $DATABASE"
escaped="$(printf '%s' "$LABEL_STUDIO_DATABASE_PASSWORD" | sed "s/'/''/g")"  # a quote in it, doubled for SQL
$SUDO runuser -u postgres -- psql -p "$PORT" -v ON_ERROR_STOP=1 -q <<SQL
SELECT 'CREATE ROLE $ROLE LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE') \gexec
ALTER ROLE $ROLE WITH LOGIN PASSWORD '$escaped';
SELECT 'CREATE DATABASE $DATABASE OWNER $ROLE ENCODING ''UTF8''' WHERE NOT EXISTS
  (SELECT FROM pg_database WHERE datname = '$DATABASE') \gexec
SQL
echo "==> PostgreSQL is ready for Label Studio: --database postgresql://$ROLE@127.0.0.1:$PORT/$DATABASE"
echo "    (the password stays in LABEL_STUDIO_DATABASE_PASSWORD; back it up with: pg_dump -Fc $DATABASE)"
