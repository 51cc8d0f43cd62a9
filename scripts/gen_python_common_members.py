#!/usr/bin/env python3
"""Print grammars/python.toml's `common_members`: the member names objects of Python's own types have.

Stage: a generator run by hand when the list is revised, not product code. Output: the TOML
array, sorted, wrapped. The semantic check (merge/checks/sole_members.py) never takes a call of one of
these names on a receiver of unknown class for a use of the repository's one definition of it: a
list's `append`, a thread's `start`, a test case's `assertEqual` may be what the call means.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import concurrent.futures
import contextlib
import datetime
import decimal
import enum
import fractions
import io
import logging
import pathlib
import queue
import re
import socket
import subprocess
import threading
import unittest

TYPES = [object, type, int, float, complex, bool, str, bytes, bytearray, memoryview, list, tuple, dict, set,
         frozenset, range, slice, property, BaseException, io.IOBase, io.TextIOWrapper, io.BufferedReader,
         io.BufferedWriter, io.BytesIO, io.StringIO, threading.Thread, type(threading.Lock()), threading.Event,
         threading.Condition, queue.Queue, collections.deque, collections.OrderedDict, collections.Counter,
         collections.defaultdict, re.Pattern, re.Match, pathlib.Path, logging.Logger, logging.Handler,
         logging.Formatter, logging.LoggerAdapter, datetime.datetime, datetime.date, datetime.time, datetime.timedelta,
         asyncio.Future, asyncio.Task, asyncio.AbstractEventLoop, asyncio.Queue, asyncio.StreamReader,
         asyncio.StreamWriter, asyncio.Event, asyncio.Lock, subprocess.Popen, socket.socket,
         concurrent.futures.Future, concurrent.futures.Executor, enum.Enum, argparse.ArgumentParser,
         argparse.Namespace, contextlib.ExitStack, unittest.TestCase, decimal.Decimal, fractions.Fraction]


def common_members() -> list[str]:
    return sorted({name for kind in TYPES for name in dir(kind) if not name.startswith("_")})


def main() -> None:
    names = common_members()
    lines, line = [], "common_members = ["
    for name in names:
        item = f'"{name}", '
        if len(line) + len(item) > 110:
            lines.append(line.rstrip())
            line = "  "
        line += item
    lines.append(line.rstrip().rstrip(",") + "]")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
