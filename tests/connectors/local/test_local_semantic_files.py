"""The vector files beside a local index: crash safety, reopening, compaction, migration.

Vectors live in matrix files (``<index>.vectors``) that SQLite's transaction counts; these
tests kill writers at the worst moments and check that passages and vectors still agree, on
both engines (subprocesses are given the engine explicitly).
"""

from __future__ import annotations

import hashlib
import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from tests.connectors._local_engines import local_engine  # noqa: F401  (every test on both engines)
from textsearch import LocalTextSearch
from textsearch.connectors.local import _vectorfile, _vectors
from textsearch.embeddings import FunctionEmbedder

np = pytest.importorskip("numpy")

DIMS = 24
ROOT = Path(__file__).resolve().parents[3]

# The same deterministic embedder in this process and in the writer subprocesses.
EMBEDDER_SOURCE = textwrap.dedent(
    """
    import hashlib, struct
    def vectors(texts):
        out = []
        for text in texts:
            seed = hashlib.sha256(text.encode()).digest() * 3
            out.append([(b - 127.5) / 127.5 for b in seed[:DIMS]])
        return out
    """
)
_space: dict[str, Any] = {"DIMS": DIMS}
exec(EMBEDDER_SOURCE, _space)
vectors = _space["vectors"]


def embedder() -> FunctionEmbedder:
    return FunctionEmbedder(vectors, model="sha-24", dimensions=DIMS)


def docs(start: int, count: int, tag: str = "") -> list[dict[str, Any]]:
    return [
        {"id": f"d{i}", "title": f"Doc {i}", "text": f"passage {i} {tag} about topic {i % 7}"}
        for i in range(start, start + count)
    ]


@pytest.fixture
def engine(local_engine: str) -> str:  # noqa: F811  (the engine of this run)
    return local_engine


def writer_script(db: Path, engine: str, body: str) -> str:
    return (
        "import os, signal, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        f"DIMS = {DIMS}\n" + EMBEDDER_SOURCE + "from textsearch import LocalTextSearch\n"
        "from textsearch.connectors.local import _vectorfile\n"
        "from textsearch.embeddings import FunctionEmbedder\n"
        "emb = FunctionEmbedder(vectors, model='sha-24', dimensions=DIMS)\n"
        f"s = LocalTextSearch({str(db)!r}, engine={engine!r}, embedder=emb)\n"
        "def docs(start, count, tag=''):\n"
        "    return [{'id': f'd{i}', 'title': f'Doc {i}',\n"
        "             'text': f'passage {i} {tag} about topic {i % 7}'}\n"
        "            for i in range(start, start + count)]\n" + textwrap.dedent(body)
    )


def run(script: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout
    )


def check_agreement(db: Path, engine: str) -> int:
    """Open the index, check SQLite's integrity, and that every passage's stored vector is the
    one of its text (recomputed): passages and vectors agree. Returns the vector count."""
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()
    with LocalTextSearch(db, engine=engine, embedder=embedder()) as s:
        rows = s._db.execute(
            "SELECT v.slot, d.title, p.section, p.text FROM passage_vectors AS v "
            "JOIN passages AS p ON p.rowid = v.rowid JOIN documents AS d ON d.rowid = p.doc"
        ).fetchall()
        count, _, _ = _vectorfile.state(s._db)
        assert all(slot < count for slot, *_ in rows)
        stored = list(_vectorfile.read_vectors(s._db, s._vectors_file(), [r[0] for r in rows]))
        for (_, title, section, text), blob in zip(rows, stored, strict=True):
            want = np.asarray(vectors([_vectors.embedding_input(title, section, text)])[0])
            got = np.frombuffer(blob, dtype=np.float32)
            assert np.allclose(got, want / np.linalg.norm(want), atol=1e-6)
        # every passage has its vector (all were written with the embedder)
        passages = s._db.execute("SELECT count(*) FROM passages").fetchone()[0]
        assert passages == len(rows)
        # and a search finds the passage whose text is the query, first
        if rows:
            _, title, section, text = rows[len(rows) // 2]
            s.mode = "semantic"
            query = _vectors.embedding_input(title, section, text)
            found = s.get_search_results_sync(query, top=1)
            assert found.results and found.results[0].text == text
            # and the ranking engine's side (tantivy or FTS5) agrees with the store
            s.mode = "keyword"
            words = s.get_search_results_sync(text, top=50)
            assert text in {r.text for r in words.results}
    return len(rows)


def oracle(search: LocalTextSearch, query: str, top: int) -> list[str]:
    """Passage texts by exact float32 cosine to ``query``'s vector, computed here."""
    rows = search._db.execute(
        "SELECT d.title, p.section, p.text, p.rowid FROM passages AS p "
        "JOIN documents AS d ON d.rowid = p.doc"
    ).fetchall()
    matrix = np.asarray(
        vectors([_vectors.embedding_input(t, s, x) for t, s, x, _ in rows]), dtype=np.float32
    )
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    q = np.asarray(vectors([query])[0], dtype=np.float32)
    scores = matrix @ (q / np.linalg.norm(q))
    order = sorted(range(len(rows)), key=lambda i: (-float(scores[i]), rows[i][3]))
    return [rows[i][2] for i in order[:top]]


def test_a_writer_killed_after_writing_vectors_but_before_commit_leaves_them_unseen(
    tmp_path: Path, engine: str
) -> None:
    db = tmp_path / "kb.sqlite3"
    done = run(writer_script(db, engine, "s.add_documents(docs(0, 50))\ns.close()\n"))
    assert done.returncode == 0, done.stderr
    # The next writer writes its rows to the files, then dies just before SQLite commits.
    body = """
    def die(db, store):
        store.sync()
        os.kill(os.getpid(), signal.SIGKILL)
    _vectorfile.finish = die
    s.add_documents(docs(50, 40, 'lost'))
    """
    killed = run(writer_script(db, engine, body))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    # The files hold rows past the committed count: nothing sees them.
    ids_file = db.parent / (db.name + ".vectors")
    assert check_agreement(db, engine) == 50
    assert any(p.stat().st_size > 50 * _vectorfile.IDS.size for p in ids_file.glob("*.ids"))
    # A new writer overwrites them, and every vector is the one of its passage.
    resumed = run(writer_script(db, engine, "s.add_documents(docs(50, 40, 'kept'))\n"))
    assert resumed.returncode == 0, resumed.stderr
    assert check_agreement(db, engine) == 90


def test_a_writer_killed_at_random_moments_never_leaves_vectors_and_passages_apart(
    tmp_path: Path, engine: str
) -> None:
    db = tmp_path / "kb.sqlite3"
    body = """
    import itertools
    print('ready', flush=True)
    for round in itertools.count():
        s.add_documents(docs((round * 37) % 400, 60, f'r{round}'))
        print('committed', flush=True)
    """
    total = 0
    for attempt, delay in enumerate((0.3, 0.7, 1.3)):
        errors = tmp_path / f"writer{attempt}.err"
        with (
            errors.open("w") as stderr,
            subprocess.Popen(
                [sys.executable, "-c", writer_script(db, engine, body)],
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            ) as proc,
        ):
            try:
                assert proc.stdout is not None
                lines = [proc.stdout.readline().strip() for _ in range(2)]
                # killed at some moment after its first commit (mid-write most of the time)
                if lines != ["ready", "committed"]:
                    proc.wait(timeout=60)
                    pytest.fail(f"writer {attempt} said {lines}: {errors.read_text()[-3000:]}")
                time.sleep(delay)
            finally:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=60)
        total = check_agreement(db, engine)
    assert total > 0


def test_vectors_written_in_one_process_are_searched_in_a_fresh_one(
    tmp_path: Path, engine: str
) -> None:
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db, embedder=embedder(), mode="semantic") as s:
        s.add_documents(docs(0, 300))
        want = [r.text for r in s.get_search_results_sync("passage 17", top=8).results]
        assert want == oracle(s, "passage 17", 8)
    body = """
    s.mode = 'semantic'
    import json
    print(json.dumps([r.text for r in s.get_search_results_sync('passage 17', top=8).results]))
    """
    fresh = run(writer_script(db, engine, body))
    assert fresh.returncode == 0, fresh.stderr
    assert json.loads(fresh.stdout) == want


def test_replaced_passages_leave_dead_slots_that_are_never_ranked_then_compacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_vectorfile, "COMPACT_FROM", 50)
    db = tmp_path / "kb.sqlite3"
    folder = db.parent / (db.name + ".vectors")
    with LocalTextSearch(db, embedder=embedder(), mode="semantic") as s:
        s.add_documents(docs(0, 120))
        epochs = {p.stem for p in folder.iterdir()}
        # Replace a few: their old slots are dead, not yet compacted (under a third).
        s.add_documents(docs(0, 30, "second"))
        count, epoch, _ = _vectorfile.state(s._db)
        assert count == 150 and {p.stem for p in folder.iterdir()} == epochs
        assert len(_vectorfile.dead_slots(s._db)) == 30
        for query in ("passage 3", "passage 3 second about topic 3", "Doc 99"):
            got = [r.text for r in s.get_search_results_sync(query, top=10).results]
            assert got == oracle(s, query, 10)
        # Replace more: past a third dead, the commit copies the live rows to a new epoch.
        s.add_documents(docs(30, 60, "third"))
        count, new_epoch, _ = _vectorfile.state(s._db)
        assert new_epoch == epoch + 1 and count == 120
        assert _vectorfile.dead_slots(s._db) == []
        for query in ("passage 3 second about topic 3", "passage 40 third", "Doc 119"):
            got = [r.text for r in s.get_search_results_sync(query, top=10).results]
            assert got == oracle(s, query, 10)
        # The old epoch's files go with the next write.
        s.add_documents(docs(500, 1))
        assert {p.stem for p in folder.iterdir()} == {str(new_epoch)}
    assert check_agreement(db, "sqlite") == 121


def _to_old_format(db: Path, version: str) -> None:
    """Rewrite an index into format 4/5: vectors as float32 blobs in ``passage_vectors``."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT p.rowid, d.title, p.section, p.text FROM passages AS p "
            "JOIN documents AS d ON d.rowid = p.doc"
        ).fetchall()
        con.execute("DROP TRIGGER IF EXISTS passage_vectors_follow")
        con.execute("DROP TRIGGER IF EXISTS passage_vectors_dead")
        con.execute("DROP TABLE IF EXISTS passage_vectors")
        con.execute("DROP TABLE IF EXISTS vector_dead")
        con.execute(
            "CREATE TABLE passage_vectors("
            "rowid INTEGER PRIMARY KEY, digest BLOB NOT NULL, vector BLOB NOT NULL)"
        )
        con.execute(
            "CREATE TRIGGER passage_vectors_follow AFTER DELETE ON passages "
            "WHEN EXISTS (SELECT 1 FROM passage_vectors WHERE rowid = old.rowid) BEGIN "
            "DELETE FROM passage_vectors WHERE rowid = old.rowid; END"
        )
        for rowid, title, section, text in rows:
            content = _vectors.embedding_input(title, section, text)
            raw = np.asarray(vectors([content])[0], dtype=np.float32) * 3.0  # not unit length
            con.execute(
                "INSERT INTO passage_vectors VALUES (?, ?, ?)",
                (rowid, _vectors.digest(content), raw.tobytes()),
            )
        con.execute("DELETE FROM textsearch_meta WHERE key IN ('vector_rows', 'vector_epoch')")
        con.execute("UPDATE textsearch_meta SET value = ? WHERE key = 'schema_version'", (version,))
        con.commit()
    finally:
        con.close()


def test_an_index_of_the_older_format_is_migrated_once(tmp_path: Path, engine: str) -> None:
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db, embedder=embedder()) as s:
        s.add_documents(docs(0, 200))
        engine = s.engine
    import shutil

    shutil.rmtree(db.parent / (db.name + ".vectors"))
    old = "4" if engine == "sqlite" else "5"
    _to_old_format(db, old)
    with LocalTextSearch(db) as plain:  # any open migrates, with or without an embedder
        version = plain._db.execute(
            "SELECT value FROM textsearch_meta WHERE key = 'schema_version'"
        ).fetchone()[0]
        assert version == ("6" if old == "4" else "7")
        columns = {r[1] for r in plain._db.execute("PRAGMA table_info(passage_vectors)")}
        assert columns == {"rowid", "digest", "slot"}
    assert check_agreement(db, engine) == 200
    with LocalTextSearch(db, embedder=embedder(), mode="semantic") as s:
        for query in ("passage 5", "Doc 150"):
            got = [r.text for r in s.get_search_results_sync(query, top=10).results]
            assert got == oracle(s, query, 10)
        # nothing was re-embedded: the vectors came over with the migration
        assert s.embed_missing_sync() == 0


def test_ctrl_c_in_index_path_with_an_embedder_keeps_an_index_that_resumes(
    tmp_path: Path, engine: str
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(30):
        (folder / f"n{i:02}.md").write_text(f"# Note {i}\n\nabout topic {i % 5} and more {i}\n")
    db = tmp_path / "kb.sqlite3"

    def interrupt(done: int, total: int, path: str) -> None:
        if done == 12:
            raise KeyboardInterrupt

    with LocalTextSearch(db, embedder=embedder()) as s:
        with pytest.raises(KeyboardInterrupt):
            s.index_path(folder, progress=interrupt)
    assert check_agreement(db, engine) >= 12
    with LocalTextSearch(db, embedder=embedder()) as s:
        report = s.index_path(folder)
        assert report.unchanged == 12 and report.added == 18
    assert check_agreement(db, engine) == 30


def test_a_process_killed_during_index_path_leaves_an_index_that_resumes(
    tmp_path: Path, engine: str
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(400):
        (folder / f"n{i:03}.md").write_text(f"# Note {i}\n\nabout topic {i % 5} and {i}\n")
    db = tmp_path / "kb.sqlite3"
    body = f"""
    def progress(done, total, path):
        if done == 250:
            os.kill(os.getpid(), signal.SIGKILL)
    s.index_path({str(folder)!r}, progress=progress)
    """
    killed = run(writer_script(db, engine, body))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    kept = check_agreement(db, engine)
    assert kept >= 200  # the first two batches of 100 files were committed
    resumed = run(writer_script(db, engine, f"print(s.index_path({str(folder)!r}))\n"))
    assert resumed.returncode == 0, resumed.stderr
    assert check_agreement(db, engine) == 400


def test_the_digest_of_the_shared_embedder_is_stable() -> None:
    # The subprocess embedder and this one must agree, or the checks above prove nothing.
    assert vectors(["x"])[0][0] == (hashlib.sha256(b"x").digest()[0] - 127.5) / 127.5


def test_a_file_removed_under_a_writer_is_opened_again_not_written_blind(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db, embedder=embedder(), mode="semantic") as s:
        s.add_documents(docs(0, 20))
        _, epoch, _ = _vectorfile.state(s._db)
        folder = db.parent / (db.name + ".vectors")
        # Another writer removed this epoch's files and made them anew (same content).
        for kind in _vectorfile.KINDS:
            name = folder / f"{epoch}.{kind}"
            data = name.read_bytes()
            name.unlink()
            name.write_bytes(data)
        s.add_documents(docs(20, 20))
        assert [r.text for r in s.get_search_results_sync("Doc 33", top=5).results] == oracle(
            s, "Doc 33", 5
        )
    assert check_agreement(db, "sqlite") == 40
