#!/usr/bin/env bash
# The pre-commit hook exactly as README writes it (issue 22 §2, 35 §1): a scratch repository
# whose .pre-commit-config.yaml has `repo: <url>` and `rev: <commit>`, then `pre-commit run
# --all-files` with no PIP_FIND_LINKS and no wheel on any index, so pre-commit fetches the
# repository at that commit and pip builds the wheel from source (pyproject.toml's backend:
# cargo builds the binary, maturin the Python API; no release matches an unreleased commit, so
# the backend's published-wheel route declines). The URL is a scratch bare copy of this
# checkout's HEAD and the commit its SHA, as a user would pin a commit before the first release.
#
# Build cost: set CARGO_TARGET_DIR to reuse a target folder (.ci/run passes its own: the
# dependencies built here serve its later steps; it builds the netbox-lsp package again from
# its clone, as this build's sources, a scratch copy, are deleted when it ends).
# Usage: scripts/precommit-ci.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
say() { printf -- '--- %s\n' "$*"; }
t0=$SECONDS
version=$(sed -n 's/^version = "\([^"]*\)".*/\1/p' Cargo.toml | head -1)

say "pre-commit from PyPI"
"$PY" -m venv "$WORK/tools"
"$WORK/tools/bin/pip" install -q --disable-pip-version-check "pre-commit>=4,<5"

commit=$(git rev-parse HEAD)
say "the repository at commit $commit (a scratch bare copy of HEAD)"
git init -q --bare "$WORK/netbox-lsp.git"
git -C "$WORK/netbox-lsp.git" fetch -q "$ROOT" HEAD
git -C "$WORK/netbox-lsp.git" update-ref refs/heads/main FETCH_HEAD
url="file://$WORK/netbox-lsp.git"

say "a repository of skills with README's .pre-commit-config.yaml"
sample="$WORK/skills-repo"
mkdir -p "$sample/skills/right" "$sample/skills/wrong"
# README's snippet, with the URL and the commit filled in.
awk '/^```yaml$/{y=1; next} y&&/^```$/{if(p) exit; y=0} y&&/^repos:/{p=1} p' README.md \
  | sed "s|repo: <url>|repo: $url|; s|rev: <commit>|rev: $commit|" > "$sample/.pre-commit-config.yaml"
grep -q "rev: $commit" "$sample/.pre-commit-config.yaml" && grep -q "repo: $url" "$sample/.pre-commit-config.yaml" \
  || { cat "$sample/.pre-commit-config.yaml"; echo "README's pre-commit snippet is not 'repo: <url>' / 'rev: <commit>'"; exit 1; }
cat "$sample/.pre-commit-config.yaml"
cat > "$sample/skills/right/SKILL.md" <<'MD'
# Leaf switches
```python
netbox_get_objects("dcim.device", filters={"role_id": 3, "status": "active"})
```
MD
cat > "$sample/skills/wrong/SKILL.md" <<'MD'
# Leaf switches
```python
netbox_get_objects("dcim.device", filters={"device_role_id": 3, "status": "active"})
```
MD
git -C "$sample" init -q
git -C "$sample" add .pre-commit-config.yaml skills/right/SKILL.md
git -C "$sample" -c user.name=ci -c user.email=ci@localhost commit -qm right

say "pre-commit run --all-files (installs the hook: the repository at $commit, pip builds the wheel from source)"
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_NO_INDEX
export PRE_COMMIT_HOME="$WORK/pre-commit-home"
t1=$SECONDS
(cd "$sample" && "$WORK/tools/bin/pre-commit" run --all-files) > "$WORK/pc-right.txt" 2>&1 \
  || { cat "$WORK/pc-right.txt"; echo "pre-commit failed on the right skill file"; exit 1; }
grep -q "Passed" "$WORK/pc-right.txt" || { cat "$WORK/pc-right.txt"; exit 1; }
echo "hook installed and passed in $((SECONDS - t1)) s"
# What the hook's environment holds: the binary and the Python API, from the source build.
env_py=$(ls -d "$PRE_COMMIT_HOME"/repo*/py_env-*/bin/python | head -1)
"$env_py" -c 'import netbox_lsp, sys; r = netbox_lsp.Checker().check_call("dcim.device", {"device_role_id": 3}); assert r.corrected == {"role_id": 3}, r; print("hook env: netbox_lsp", netbox_lsp.__version__, "API ok")'
"$(dirname "$env_py")/netbox-lsp" --version
"$env_py" -m pip show netbox-lsp | grep -E "^(Name|Version|Location)"
if "$env_py" -m pip download --no-deps --only-binary :all: -d "$WORK/none" "netbox-lsp==$version" -q >/dev/null 2>&1; then
  echo "note: a netbox-lsp $version wheel is on the package index; the hook built from source all the same"
fi

git -C "$sample" add skills/wrong/SKILL.md
if (cd "$sample" && "$WORK/tools/bin/pre-commit" run --all-files) > "$WORK/pc-wrong.txt" 2>&1; then
  cat "$WORK/pc-wrong.txt"; echo "pre-commit passed a wrong skill file"; exit 1
fi
grep -q 'skills/wrong/SKILL.md:3:.*error\[unknown-filter\] `device_role_id`' "$WORK/pc-wrong.txt" \
  || { cat "$WORK/pc-wrong.txt"; exit 1; }
if grep -q 'skills/right' "$WORK/pc-wrong.txt"; then cat "$WORK/pc-wrong.txt"; exit 1; fi
echo "pre-commit: right file passed, wrong file failed with unknown-filter"
say "pre-commit ci done in $((SECONDS - t0)) s"
