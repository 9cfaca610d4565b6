"""The one way the SDK writes a blocking twin of an async method: a plan, driven twice.

The logic of an operation is written once, as a generator (a *plan*) that yields each step it
needs done (a query to run, texts to embed, a search to call) and receives the step's result
back, or the step's exception thrown in at the ``yield``. One driver runs a plan: `drive`
awaits each step; `drive_sync` is `drive` given steps performed blocking. Nothing else differs
between the twins, so nothing else is written twice::

    def _delete(self, ids) -> Plan[Step, int]:
        count = yield Sql("DELETE ...", ids, fetch="one")
        return int(count[0])

    async def delete(self, ids):
        return await drive(self._delete(ids), self._perform)

    def delete_sync(self, ids):
        return drive_sync(self._delete(ids), self._perform_sync)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["Call", "Plan", "drive", "drive_sync", "perform", "perform_sync"]

S = TypeVar("S")
T = TypeVar("T")

#: A plan: yields steps of type ``S``, receives each step's result, returns ``T``.
Plan = Generator[S, Any, T]


async def drive(plan: Plan[S, T], perform: Callable[[S], Awaitable[Any]]) -> T:
    """Run ``plan``, awaiting ``perform`` for each step it yields.

    An exception from a step is thrown into the plan at its ``yield``, so a plan handles a
    failure with an ordinary ``try``/``except`` around the ``yield``. It is thrown in outside
    the driver's ``except`` block: an error the plan raises later does not get it as its
    ``__context__``.
    """
    try:
        step = next(plan)
        while True:
            result, failure = None, None
            try:
                result = await perform(step)
            except Exception as exc:  # the plan decides: handle it, or let it propagate
                failure = exc
            step = plan.send(result) if failure is None else plan.throw(failure)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    finally:
        plan.close()


def drive_sync(plan: Plan[S, T], perform: Callable[[S], Any]) -> T:
    """Run ``plan``, performing each step it yields with the blocking ``perform``.

    This is `drive` itself, given steps that return at once: nothing in it ever waits on an
    event loop, so its coroutine runs to the end in one ``send`` (no loop is needed or made),
    and the twins cannot drift apart in how a step's failure reaches the plan.
    """

    async def at_once(step: S) -> Any:
        return perform(step)

    running = drive(plan, at_once)
    try:
        running.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    finally:
        running.close()
    raise RuntimeError("a blocking plan's step waited on an event loop")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class Call:
    """One call as a step, in its blocking and its async form, with its arguments."""

    blocking: Callable[..., Any]
    coroutine: Callable[..., Awaitable[Any]]
    args: tuple[Any, ...]


def perform_sync(step: Call) -> Any:
    """Perform a `Call` step blocking (the ``perform`` of `drive_sync`)."""
    return step.blocking(*step.args)


async def perform(step: Call) -> Any:
    """Perform a `Call` step by awaiting its async form (the ``perform`` of `drive`)."""
    return await step.coroutine(*step.args)
