"""Where the black-box servers keep their state. The suite runs once on SQLite files and once on
PostgreSQL (AGENTGATE_E2E_STORE=postgres, a schema per server directory) for the tests whose
outcome the store decides (conftest.py chooses them). PrivatePostgres is a throw-away cluster for tests that restart the database."""
import glob
import hashlib
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time

KIND = os.environ.get("AGENTGATE_E2E_STORE", "sqlite")
POSTGRES_URL = os.environ.get("AGENTGATE_TEST_POSTGRES_URL", "")

_schemas = set()


def with_schema(url, schema):
    """The URL of `schema` in the database at `url` (libpq's options parameter sets search_path)."""
    return url + ("&" if "?" in url else "?") + f"options=-csearch_path%3D{schema}"


def create_schema(prefix="e2e"):
    schema = f"{prefix}_{os.urandom(6).hex()}"
    psql(POSTGRES_URL, f"CREATE SCHEMA {schema}")
    _schemas.add(schema)
    return schema


def store_url(directory):
    """The store of the server running in `directory`: one per directory, so a server restarted
    in the same directory finds its data, and two servers given the same URL share it."""
    if KIND != "postgres":
        return f"sqlite:{directory}/var/agentgate.db"
    schema = "e2e_" + hashlib.sha1(str(directory).encode()).hexdigest()[:16]
    if schema not in _schemas:
        psql(POSTGRES_URL, f"CREATE SCHEMA IF NOT EXISTS {schema}")
        _schemas.add(schema)
    return with_schema(POSTGRES_URL, schema)


def stored_bytes(url):
    """Everything the store holds, as bytes, to prove a secret is not among them."""
    if url.startswith("sqlite:"):
        path = url[len("sqlite:"):]
        return b"".join(open(p, "rb").read() for p in glob.glob(path + "*"))
    schema = url.rsplit("search_path%3D", 1)[1]
    dump = subprocess.run(["pg_dump", "--data-only", f"--schema={schema}", POSTGRES_URL],
                          check=True, capture_output=True).stdout
    # bytea is dumped as hex text: decode it so the raw bytes are scanned too.
    return dump + b"".join(bytes.fromhex(h.decode()) for h in re.findall(rb"\\\\x((?:[0-9a-f]{2})+)", dump))


def execute(url, sql):
    """Runs `sql` on the store directly (seeding what no API writes in bulk)."""
    if url.startswith("sqlite:"):
        import sqlite3
        db = sqlite3.connect(url[len("sqlite:"):], timeout=10)
        try:
            db.executescript(sql)
            db.commit()
        finally:
            db.close()
        return
    psql(url, sql)


def count_rows(url, table):
    """How many rows the store's `table` holds (what no API lists: conversations never answered)."""
    if url.startswith("sqlite:"):
        import sqlite3
        db = sqlite3.connect(url[len("sqlite:"):])
        try:
            return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        finally:
            db.close()
    return int(psql(url, f"SELECT count(*) FROM {table}").strip())


def drop_schemas():
    # One session for many drops (each -c is its own transaction, so no single one holds the locks
    # of every schema): a psql process and a login per schema took 15 s at the end of a run.
    schemas = sorted(_schemas)
    for start in range(0, len(schemas), 25):
        drops = [arg for schema in schemas[start:start + 25]
                 for arg in ("-c", f"DROP SCHEMA IF EXISTS {schema} CASCADE")]
        subprocess.run(["psql", POSTGRES_URL, "-qAt", *drops], capture_output=True, check=False)
    _schemas.clear()


def psql(url, sql, check=True):
    return subprocess.run(["psql", url, "-qAtc", sql], check=check, capture_output=True, text=True).stdout


class WritesHeld:
    """Holds the store's lock on turn commits for `seconds` (from a thread): a SQLite file's write
    lock, or PostgreSQL's lock on the turns table. Entering returns once the lock is held."""

    def __init__(self, url, seconds):
        self.url, self.seconds = url, seconds
        self.held = threading.Event()
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self):
        if self.url.startswith("sqlite:"):
            import sqlite3
            db = sqlite3.connect(self.url[len("sqlite:"):], isolation_level=None)
            db.execute("BEGIN IMMEDIATE")
            self.held.set()
            time.sleep(self.seconds)
            db.execute("ROLLBACK")
            db.close()
            return
        flag = tempfile.mktemp(prefix="agentgate-lock-")
        script = (f"BEGIN;\nLOCK TABLE turns IN EXCLUSIVE MODE;\n\\! touch {flag}\n"
                  f"SELECT pg_sleep({self.seconds});\nCOMMIT;\n")
        proc = subprocess.Popen(["psql", self.url, "-qAt"], stdin=subprocess.PIPE, text=True,
                                stdout=subprocess.DEVNULL)
        proc.stdin.write(script)
        proc.stdin.close()
        while not os.path.exists(flag) and proc.poll() is None:
            time.sleep(0.01)
        self.held.set()
        proc.wait()
        os.unlink(flag)

    def __enter__(self):
        self.thread.start()
        self.held.wait(10)
        return self

    def __exit__(self, *exc):
        self.thread.join()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivatePostgres:
    """A PostgreSQL cluster of its own (initdb in a temporary directory) that a test may stop and
    restart without disturbing the shared test database. Runs as the postgres user under root."""

    def __init__(self):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            raise RuntimeError("PostgreSQL server binaries are not installed (scripts/install-deps.sh)")
        self.bin = os.path.dirname(bins[-1])
        self.dir = tempfile.mkdtemp(prefix="agentgate-pg-")
        self.port = free_port()
        if os.getuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        self._run("initdb", "-D", f"{self.dir}/data", "-U", "agentgate", "-A", "trust", "--no-sync",
                  "--no-instructions")
        self.url = f"postgresql://agentgate@127.0.0.1:{self.port}/postgres"
        self.start()

    def _run(self, tool, *args):
        cmd = [f"{self.bin}/{tool}", *args]
        if os.getuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, cwd=self.dir)

    def _ctl(self, action, *extra):
        self._run("pg_ctl", "-D", f"{self.dir}/data", "-l", f"{self.dir}/log", "-w", "-m", "fast",
                  "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
                  *extra, action)

    def start(self):
        self._ctl("start")

    def stop(self):
        self._ctl("stop")

    def restart(self):
        self._ctl("restart")

    def close(self):
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
