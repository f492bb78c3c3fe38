"""Write requirements.lock (runtime: what `mqcap` needs, walked from its metadata) and
requirements-dev.lock (everything else installed: test and lint tools) from the current
environment, with exact versions. Used by `make lock`; run with the environment's python.
"""
import subprocess, sys
from importlib import metadata
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name as c

def deps(name, extras):
    d = metadata.distribution(name)
    out = []
    for r in d.requires or []:
        req = Requirement(r)
        if req.marker:
            ok = any(req.marker.evaluate({"extra": e}) for e in ({""} | set(extras)))
            if not ok:
                continue
        out.append((req.name, req.extras))
    return out

seen = {}
stack = [("mqcap", set())]
while stack:
    n, ex = stack.pop()
    key = c(n)
    new = set(ex) - seen.get(key, set())
    if key in seen and not new:
        continue
    seen[key] = seen.get(key, set()) | set(ex)
    stack += deps(n, seen[key])
freeze = subprocess.run([sys.executable, "-m", "pip", "freeze", "--all", "--exclude-editable"],
                        capture_output=True, text=True, check=True).stdout.split()
freeze = [l for l in freeze if c(l.split("==")[0]) not in ("mqcap", "pip")]
build = {"setuptools", "wheel"}  # `pip install --no-build-isolation -e .` needs them
run = [l for l in freeze if c(l.split("==")[0]) in seen or c(l.split("==")[0]) in build]
dev = [l for l in freeze if l not in run]
head = "# Exact versions of every {what} dependency (direct and transitive); {how}.\n# Regenerate on purpose with 'make lock' after changing pyproject.toml.\n"
open("requirements.lock", "w").write(head.format(what="runtime", how="`make demo` installs only these") + "\n".join(run) + "\n")
open("requirements-dev.lock", "w").write(head.format(what="development (test, lint)", how="`make test` installs these on top of requirements.lock") + "\n".join(dev) + "\n")
print(len(run), len(dev))
