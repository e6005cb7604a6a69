"""``ForumSite``: the forum's task templates, their oracle plans and their scoring.

Ten templates, half of them change the site (create a post, reply, edit the profile,
upvote, delete a comment) and half ask for a fact the agent must find (a post's author,
its number of comments, a forum's top post or post count, a user's location). A task is
drawn from the prepared database with the env's RNG only; ``score`` reads the episode's
database (and the answer) and also checks that a change touched nothing else.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from turngym.envs.web.sites.forum import data
from turngym.envs.web.sites.pages import answer_matches, draw_task, pick, rows_digest, same_text
from turngym.envs.web.tasks import Step, Task, WSGIApp

__all__ = ["ForumSite"]

_NEW_TITLE_OPENERS = (
    "Need opinions on my new",
    "Just tried a second-hand",
    "Budget ideas for a",
    "Photos of my weekend with the",
    "Anyone else obsessed with the",
    "Quick poll about the",
)
_NEW_BODIES = (
    "Sharing this in case it helps someone.",
    "Would love to hear your experience.",
    "Long time reader, first post here.",
    "Let me know what you think in the replies.",
    "I will post an update next week.",
)
_NEW_REPLIES = (
    "Thanks, this was really useful!",
    "I tried this last month and loved it.",
    "Could you share where you found it?",
    "Great write-up, bookmarked.",
    "I respectfully disagree, but nice post.",
    "Same experience here.",
)
_PROFILE_VALUES = {
    "bio": (
        "Amateur baker and weekend hiker.",
        "Learning something new every day.",
        "Coffee first, questions later.",
        "Collector of old maps.",
    ),
    "location": ("Vancouver, Canada", "Madrid, Spain", "Austin, TX", "Berlin, Germany"),
    "email": ("jordan.lee@fastmail.com", "jlee.forum@example.org", "jordan@leefamily.net"),
    "display_name": ("Jordan L.", "JL the Reader", "Jordan from Seattle"),
}
_PROFILE_LABELS = {
    "bio": "Bio",
    "location": "Location",
    "email": "Email",
    "display_name": "Display name",
}
_PROFILE_WORDS = {
    "bio": "bio",
    "location": "location",
    "email": "email address",
    "display_name": "display name",
}


def _open_post(title: str) -> tuple[Step, ...]:
    """Search for a post by its title and open it."""
    return (
        Step.fill("searchbox", "Search", title),
        Step.click("button", "Search"),
        Step.click("link", title),
    )


def _count(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> int:
    return int(conn.execute(sql, tuple(params)).fetchone()[0])


class ForumSite:
    """A Reddit-like forum: 10 forums, 300 posts, ~1,500 comments, 80 users.

    >>> site = ForumSite()
    >>> site.name, len(site.templates), "post_author" in site.templates
    ('forum-v1', 10, True)
    """

    name: str = "forum-v1"
    templates: tuple[str, ...] = (
        "create_post",
        "reply_to_post",
        "edit_profile",
        "upvote_post",
        "delete_comment",
        "post_author",
        "comment_count",
        "top_post",
        "user_location",
        "forum_post_count",
    )

    def build_database(self, path: Path) -> None:
        """Write the prepared forum database to ``path``."""
        data.build(path)

    def app(self, db_path: Path) -> WSGIApp:
        """The forum's WSGI app serving ``db_path``."""
        from turngym.envs.web.sites.forum.app import make_app  # werkzeug only when serving

        return make_app(db_path)

    def sample_task(
        self, rng: np.random.Generator, conn: sqlite3.Connection, template: str | None = None
    ) -> Task:
        """Draw a task from ``template`` (or a template drawn with ``rng``)."""
        return draw_task(self, rng, conn, template)

    def finished(self, task: Task, conn: sqlite3.Connection) -> bool:
        """Never: forum episodes end when the agent answers."""
        return False

    def score(self, task: Task, conn: sqlite3.Connection, answer: str | None) -> float:
        """1.0 if the goal holds in the database (or the answer is right), else 0.0."""
        conn.row_factory = sqlite3.Row
        goal = task.goal
        if "answers" in goal:
            return float(answer_matches(answer, goal["answers"]))
        check: Callable[[Mapping[str, Any], sqlite3.Connection], bool] = getattr(
            self, f"_check_{task.template}"
        )
        return float(check(goal, conn))

    # ----- drawing posts and users -------------------------------------------------------

    @staticmethod
    def _post(rng: np.random.Generator, conn: sqlite3.Connection, where: str = "1") -> sqlite3.Row:
        rows = conn.execute(
            "SELECT p.*, u.username, f.name AS forum FROM posts p JOIN users u ON u.id = p.user_id"
            f" JOIN forums f ON f.id = p.forum_id WHERE {where} ORDER BY p.id"
        ).fetchall()
        return pick(rng, rows)

    @staticmethod
    def _forum(rng: np.random.Generator, conn: sqlite3.Connection) -> str:
        return str(pick(rng, [r[0] for r in conn.execute("SELECT name FROM forums ORDER BY id")]))

    # ----- state-changing templates ------------------------------------------------------

    def _task_create_post(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        forum = self._forum(rng, conn)
        topics = data.FORUMS[forum][1]
        title = f"{pick(rng, _NEW_TITLE_OPENERS)} {pick(rng, topics)}"
        body = pick(rng, _NEW_BODIES)
        return Task(
            "create_post",
            f'Create a post in the forum "{forum}" titled "{title}" with the body "{body}".',
            {
                "forum": forum,
                "title": title,
                "body": body,
                "n_posts": _count(conn, "SELECT COUNT(*) FROM posts"),
            },
            (
                Step.click("link", "Create post"),
                Step.select("combobox", "Forum", forum),
                Step.fill("textbox", "Title", title),
                Step.fill("textbox", "Body", body),
                Step.click("button", "Create post"),
                Step.answer("done"),
            ),
        )

    def _check_create_post(self, goal: Mapping[str, Any], conn: sqlite3.Connection) -> bool:
        if _count(conn, "SELECT COUNT(*) FROM posts") != goal["n_posts"] + 1:
            return False
        rows = conn.execute(
            "SELECT p.title, p.body FROM posts p JOIN forums f ON f.id = p.forum_id"
            " WHERE p.user_id = 1 AND f.name = ? AND p.id > ?",
            (goal["forum"], goal["n_posts"]),
        ).fetchall()
        return any(
            same_text(r["title"], goal["title"]) and same_text(r["body"], goal["body"])
            for r in rows
        )

    def _task_reply_to_post(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        post = self._post(rng, conn)
        text = pick(rng, _NEW_REPLIES)
        return Task(
            "reply_to_post",
            f'Reply to the post titled "{post["title"]}" with the comment "{text}".',
            {
                "post_id": post["id"],
                "text": text,
                "n_comments": _count(conn, "SELECT COUNT(*) FROM comments"),
            },
            (
                *_open_post(post["title"]),
                Step.fill("textbox", "Reply to this post", text),
                Step.click("button", "Post reply"),
                Step.answer("done"),
            ),
        )

    def _check_reply_to_post(self, goal: Mapping[str, Any], conn: sqlite3.Connection) -> bool:
        if _count(conn, "SELECT COUNT(*) FROM comments") != goal["n_comments"] + 1:
            return False
        rows = conn.execute(
            "SELECT body FROM comments WHERE post_id = ? AND user_id = 1", (goal["post_id"],)
        ).fetchall()
        return any(same_text(r["body"], goal["text"]) for r in rows)

    def _task_edit_profile(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        key = pick(rng, tuple(_PROFILE_VALUES))
        me = conn.execute("SELECT * FROM users WHERE id = 1").fetchone()
        value = pick(rng, [v for v in _PROFILE_VALUES[key] if v != me[key]])
        before = {k: me[k] for k in _PROFILE_VALUES if k != key}
        return Task(
            "edit_profile",
            f'Change the {_PROFILE_WORDS[key]} on your profile to "{value}".',
            {
                "field": key,
                "value": value,
                "unchanged": before,
                "others": rows_digest(conn, "SELECT * FROM users WHERE id != 1 ORDER BY id"),
            },
            (
                Step.click("link", "Edit profile"),
                Step.fill("textbox", _PROFILE_LABELS[key], value),
                Step.click("button", "Save profile"),
                Step.answer("done"),
            ),
        )

    def _check_edit_profile(self, goal: Mapping[str, Any], conn: sqlite3.Connection) -> bool:
        me = conn.execute("SELECT * FROM users WHERE id = 1").fetchone()
        return (
            same_text(me[goal["field"]], goal["value"])
            and all(me[k] == v for k, v in goal["unchanged"].items())
            and rows_digest(conn, "SELECT * FROM users WHERE id != 1 ORDER BY id") == goal["others"]
        )

    def _task_upvote_post(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        post = self._post(
            rng,
            conn,
            "p.user_id != 1 AND p.id NOT IN (SELECT post_id FROM votes WHERE user_id = 1)",
        )
        return Task(
            "upvote_post",
            f'Upvote the post titled "{post["title"]}".',
            {
                "post_id": post["id"],
                "score": post["score"],
                "other_votes": rows_digest(
                    conn,
                    "SELECT * FROM votes WHERE post_id != ? ORDER BY user_id, post_id",
                    (post["id"],),
                ),
            },
            (*_open_post(post["title"]), Step.click("button", "Upvote"), Step.answer("done")),
        )

    def _check_upvote_post(self, goal: Mapping[str, Any], conn: sqlite3.Connection) -> bool:
        pid = goal["post_id"]
        vote = conn.execute(
            "SELECT value FROM votes WHERE user_id = 1 AND post_id = ?", (pid,)
        ).fetchone()
        score = _count(conn, "SELECT score FROM posts WHERE id = ?", (pid,))
        others = rows_digest(
            conn, "SELECT * FROM votes WHERE post_id != ? ORDER BY user_id, post_id", (pid,)
        )
        return (
            bool(vote and vote["value"] == 1)
            and score == goal["score"] + 1
            and (others == goal["other_votes"])
        )

    def _task_delete_comment(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        rows = conn.execute(
            "SELECT c.id, c.post_id, p.title FROM comments c JOIN posts p ON p.id = c.post_id"
            " WHERE c.user_id = 1 AND (SELECT COUNT(*) FROM comments d"
            " WHERE d.post_id = c.post_id AND d.user_id = 1) = 1 ORDER BY c.id"
        ).fetchall()
        row = pick(rng, rows)
        return Task(
            "delete_comment",
            f'Delete your comment on the post titled "{row["title"]}".',
            {
                "comment_id": row["id"],
                "others": rows_digest(
                    conn, "SELECT * FROM comments WHERE id != ? ORDER BY id", (row["id"],)
                ),
            },
            (
                *_open_post(row["title"]),
                Step.click("button", "Delete comment"),
                Step.answer("done"),
            ),
        )

    def _check_delete_comment(self, goal: Mapping[str, Any], conn: sqlite3.Connection) -> bool:
        cid = goal["comment_id"]
        gone = _count(conn, "SELECT COUNT(*) FROM comments WHERE id = ?", (cid,)) == 0
        others = rows_digest(conn, "SELECT * FROM comments WHERE id != ? ORDER BY id", (cid,))
        return gone and others == goal["others"]

    # ----- information templates ---------------------------------------------------------

    def _task_post_author(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        post = self._post(rng, conn, "p.user_id != 1")
        return Task(
            "post_author",
            f'Who wrote the post titled "{post["title"]}"? Answer with their username.',
            {"answers": [post["username"]]},
            (*_open_post(post["title"]), Step.answer(post["username"])),
        )

    def _task_comment_count(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        post = self._post(rng, conn)
        n = _count(conn, "SELECT COUNT(*) FROM comments WHERE post_id = ?", (post["id"],))
        return Task(
            "comment_count",
            f'How many comments (replies included) does the post titled "{post["title"]}" have?',
            {"answers": [str(n)]},
            (*_open_post(post["title"]), Step.answer(str(n))),
        )

    def _task_top_post(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        forum = self._forum(rng, conn)
        rows = conn.execute(
            "SELECT p.title, p.score FROM posts p JOIN forums f ON f.id = p.forum_id"
            " WHERE f.name = ? ORDER BY p.score DESC, p.id DESC",
            (forum,),
        ).fetchall()
        best = [r["title"] for r in rows if r["score"] == rows[0]["score"]]  # ties all count
        return Task(
            "top_post",
            f'What is the title of the highest-scoring post in the forum "{forum}"?',
            {"answers": best},
            (Step.click("link", forum), Step.click("link", "Top"), Step.answer(best[0])),
        )

    def _task_user_location(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        users = conn.execute(
            "SELECT username, location FROM users WHERE id != 1 ORDER BY id"
        ).fetchall()
        u = pick(rng, users)
        city = u["location"].split(",")[0]
        return Task(
            "user_location",
            f'Where does the user "{u["username"]}" live, according to their profile?',
            {"answers": [u["location"], city]},
            (
                Step.fill("searchbox", "Search", u["username"]),
                Step.click("button", "Search"),
                Step.click("link", u["username"]),
                Step.answer(u["location"]),
            ),
        )

    def _task_forum_post_count(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        forum = self._forum(rng, conn)
        n = _count(
            conn,
            "SELECT COUNT(*) FROM posts p JOIN forums f ON f.id = p.forum_id WHERE f.name = ?",
            (forum,),
        )
        return Task(
            "forum_post_count",
            f'How many posts are there in the forum "{forum}"?',
            {"answers": [str(n)]},
            (Step.click("link", forum), Step.answer(str(n))),
        )
