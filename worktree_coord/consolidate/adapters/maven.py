"""Maven: pom.xml edits anchored on parsed positions (edits/pom_xml.py); nothing to relock.

Maven has no lockfile: a pom.xml names its dependencies' versions itself (or through a property, or
a parent's `<dependencyManagement>`), and Maven resolves them at build time. So a consolidated
Maven root is its edited pom.xml files, verified by reading each intent's value back; no tool runs
(`mvn` is not needed where consolidation runs). The order of the edits follows the build's module
graph (consolidate/graph.py: a module after its parent and after the modules it depends on).
"""

from __future__ import annotations

from worktree_coord.consolidate.adapters.base import ToolAdapter, ToolConfig
from worktree_coord.consolidate.intent import Ecosystem


class MavenAdapter(ToolAdapter):
    ecosystem = Ecosystem.MAVEN
    tool = "mvn"
    lock_name = ""                     # no lockfile: consolidation never relocks a Maven root
    default_config = ToolConfig(relock=())

    def lockfiles(self) -> list[str]:
        return []
