"""What the round-trip scripts share (roundtrip.py with the Python `mcp` SDK,
before_after.py without it): the questions, the percentiles, a process's CPU time and
the daemon's NDJSON client."""

import json
import os
import statistics
import subprocess
import time

# Questions a user of a command-line documentation folder asks (tldr-pages).
QUERIES = [
    "how do I extract a tar archive",
    "list files sorted by size",
    "find files modified in the last day",
    "show disk usage of a folder",
    "create a new git branch and switch to it",
    "undo the last git commit",
    "copy files over ssh",
    "download a file from a url",
    "compress a folder into a zip file",
    "kill a process by name",
    "show running processes",
    "change file permissions recursively",
    "search text in files recursively",
    "replace text in a file with sed",
    "print the first lines of a file",
    "follow a log file as it grows",
    "list open network ports",
    "show the ip address of this machine",
    "mount a usb drive",
    "convert an image to png",
    "resize an image",
    "record the terminal session",
    "schedule a job with cron",
    "create a python virtual environment",
    "install a package with pip",
    "run a docker container interactively",
    "list docker images",
    "show kubernetes pods",
    "generate an ssh key",
    "check a file checksum",
    "count lines in a file",
    "sort lines and remove duplicates",
    "show the calendar",
    "measure how long a command takes",
    "watch a command every two seconds",
    "split a large file into parts",
    "encrypt a file with gpg",
    "show memory usage",
    "compare two files",
    "rename many files at once",
]


def cpu_ms(pid):
    """User + system CPU time of a process so far, milliseconds (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def child_pid(args_part):
    """The pid of our child process whose command line contains `args_part`."""
    me = os.getpid()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if ppid == me and args_part in cmd:
            return int(d)
    return None


def percentile(xs, p):
    s = sorted(xs)
    k = (len(s) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(xs):
    return {
        "n": len(xs),
        "p50_ms": round(percentile(xs, 50), 3),
        "p90_ms": round(percentile(xs, 90), 3),
        "p99_ms": round(percentile(xs, 99), 3),
        "mean_ms": round(statistics.fmean(xs), 3),
    }


class Daemon:
    def __init__(self, crabpath, brain, extra):
        self.p = subprocess.Popen(
            [crabpath, "daemon", "--state", brain] + extra,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.i = 0

    def query(self, q, top_k, args=None):
        """One `query` round trip in ms; `args`: more query arguments (e.g. `limit`)."""
        params = {"query": q, "top_k": top_k, "chat_id": "bench-daemon", **(args or {})}
        return self.call("query", params)

    def call(self, method, params):
        """One request's round trip in ms (exits on an answer that is not a result)."""
        self.i += 1
        req = {"id": self.i, "method": method, "params": params}
        t0 = time.perf_counter()
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        dt = (time.perf_counter() - t0) * 1000.0
        if '"result"' not in line:
            raise SystemExit(f"daemon error: {line}")
        return dt

    def close(self):
        self.p.stdin.write(json.dumps({"id": 0, "method": "shutdown"}) + "\n")
        self.p.stdin.close()
        self.p.wait()
