# The public face as type checkers see it: __init__.py loads these names lazily (PEP 562), which a
# type checker cannot follow, so this stub names the real classes. Keep it in step with __all__
# (tests/test_public_types.py checks both ways).
from .coordinator import Coordinator as Coordinator
from .errors import ActionRequired as ActionRequired
from .errors import BoundaryViolation as BoundaryViolation
from .errors import BusyError as BusyError
from .errors import ConfigError as ConfigError
from .errors import ConflictError as ConflictError
from .errors import IdempotencyMismatch as IdempotencyMismatch
from .errors import InternalError as InternalError
from .errors import LookUnanswered as LookUnanswered
from .errors import Interrupted as Interrupted
from .errors import NotFoundError as NotFoundError
from .errors import StateError as StateError
from .errors import UsageError as UsageError
from .errors import WtcError as WtcError
from .merge import FileMerge as FileMerge
from .merge import merge_file as merge_file
from .model import TaskState as TaskState
from .records import ConflictRecord as ConflictRecord
from .results import ConsolidationReport as ConsolidationReport
from .results import Forecast as Forecast
from .results import GcReport as GcReport
from .results import Landed as Landed
from .records import LeftoverRecord as LeftoverRecord
from .results import MergeReport as MergeReport
from .results import RunReport as RunReport
from .results import RunStarted as RunStarted
from .results import RunStatus as RunStatus
from .records import SemanticRecord as SemanticRecord
from .records import SkippedRecord as SkippedRecord
from .results import TaskAbandoned as TaskAbandoned
from .results import TaskCheck as TaskCheck
from .results import TaskFinished as TaskFinished
from .results import TaskStarted as TaskStarted
from .results import TaskUpdated as TaskUpdated
from .results import TaskWidened as TaskWidened
from .records import ViolationRecord as ViolationRecord

__version__: str
__all__: list[str]
