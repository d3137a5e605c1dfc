"""Type stubs of the native module (Rust, PyO3). Ranges are Python str indices (code points)."""

from collections.abc import Iterator, Sequence
from os import PathLike
from typing import Any, Literal, Optional, Union, final

__all__ = ["Checker", "Edit", "Finding", "Fix", "Report", "__version__", "shipped_versions"]

__version__: str

_Kind = Literal["markdown", "md", "python", "py", "yaml", "yml", "json", "graphql", "text", "txt"]
_Severity = Literal["error", "warning", "information", "hint"]

def shipped_versions() -> list[str]:
    """The NetBox releases whose knowledge is built in, oldest first (e.g. ``["4.3.3", ..., "4.6.8"]``)."""

@final
class Edit:
    """One replacement: ``Report.text[range[0]:range[1]]`` becomes ``new_text``."""

    range: tuple[int, int]
    new_text: str

@final
class Fix:
    """A fix: its title (``"Replace `device_role_id` with `role_id`"``), its edits, and whether it
    is the one certain fix (the preferred quick-fix, applied by ``Report.corrected``)."""

    title: str
    certain: bool
    edits: list[Edit]

@final
class Finding:
    """One problem, as docs/diagnostics.md describes its ``code``.

    ``key`` is the filter it is about (``None`` for the object type or the call as a whole, and
    for ``check_text``); ``range`` is its place in ``Report.text``.
    """

    code: str
    severity: _Severity
    message: str
    key: Optional[str]
    range: tuple[int, int]
    fixes: list[Fix]
    def as_dict(self) -> dict[str, Any]:
        """The finding as plain values (JSON-ready): code, severity, message, key, range, fixes."""

@final
class Report(Sequence[Finding]):
    """The findings of one check, in order. Falsy when there is none."""

    @property
    def findings(self) -> list[Finding]: ...
    @property
    def text(self) -> str:
        """The text the ranges index: the text given to ``check_text``, else the canonical JSON
        of the call (``'"dcim.device" {"role_id": 3}'``)."""
    @property
    def endpoint(self) -> Optional[str]:
        """``check_call``: the endpoint path the filters were checked against
        (``"/api/ipam/ip-addresses/"``: the target's, or the one its certain fix names, so
        ``"ipam.ip_address"`` still has its filters checked). ``None`` when the target names no
        endpoint known here (a warning then says the filters are not checked), and for the other
        checks."""
    @property
    def ok(self) -> bool:
        """True when no finding is an error or a warning (hints and information may remain)."""
    @property
    def corrected(self) -> Any:
        """The input with every certain fix applied, in the shape given: the filters dict for
        ``check_call``, the tool-call dict for ``check_tool_call``, the text for ``check_text``.
        ``None`` when an error or warning has no certain fix (a human or the agent must choose),
        and for ``check_call`` when the target itself needs a fix (``"ipam.ip_address"``,
        ``"dcim.devices"``: the dict cannot carry the new target; the findings name it) or names
        no endpoint. What it returns is re-checked: the certain fixes are applied round after
        round (as ``netbox-lsp check --fix`` does) and the result is given only when it then
        checks with no error or warning (a renamed filter can show a value rule the old name
        hid). Equal to the input when there is no finding."""
    def __len__(self) -> int: ...
    def __bool__(self) -> bool: ...
    def __getitem__(self, i: int, /) -> Finding: ...  # type: ignore[override]
    def __iter__(self) -> Iterator[Finding]: ...

@final
class Checker:
    """The knowledge of one NetBox version, loaded once; checks are then pure and thread-safe.

    ``Checker()`` uses the newest shipped release; ``Checker("4.5")`` the newest shipped 4.5.x
    (a release that is not shipped uses the closest one, said in ``notes``, and findings another
    release may have made valid become warnings). ``Checker(index="netbox.index.json.gz")``
    uses an index written by ``netbox-lsp index build`` (from a release's OpenAPI document, or
    from a live instance with its custom fields, plugins and extended choices);
    ``graphql_schema=`` a schema file (SDL or introspection JSON). Raises ``ValueError`` for a
    version that is not shipped or a file that cannot be read.
    """

    def __new__(
        cls,
        netbox_version: Optional[str] = None,
        *,
        index: Optional[Union[str, PathLike[str]]] = None,
        graphql_schema: Optional[Union[str, PathLike[str]]] = None,
    ) -> Checker: ...
    @property
    def netbox_version(self) -> Optional[str]:
        """The NetBox release of the filter index (``"4.6.8"``)."""
    @property
    def notes(self) -> list[str]:
        """What loading said: a version fallback, checks that are off."""
    def check_call(self, target: str, filters: dict[str, Any]) -> Report:
        """Checks the filters of one REST call before it is sent.

        ``target`` is an object type as the NetBox MCP tools take it (``"dcim.device"``) or an
        endpoint path (``"dcim/devices"``, ``"/api/dcim/devices/"``). ``filters`` is a dict of
        str keys; values are read as the wire sees them: ``None`` is a value the MCP client (or
        requests, for a path) drops, so the call is unfiltered (``dropped-value``); bool, int,
        float, str; a list or tuple sends the key once per element; anything else is not judged.
        Raises ``TypeError`` for a non-str key.
        """
    def check_tool_call(self, call: Union[dict[str, Any], str]) -> Report:
        """Checks a tool call as an agent emits it: ``{"name": "netbox_get_objects", "arguments":
        {"object_type": ..., "filters": {...}}}`` (also ``tool``/``input``/``args``, arguments as a
        JSON string, namespaced names such as ``mcp__netbox__netbox_get_objects``,
        ``netbox_get_changelogs``, ``netbox_get_object_by_id``, ``netbox_search_objects`` and the
        GraphQL tool), recognised exactly as the ``check`` command reads a JSON tool call. The
        call may also be given as its JSON text. ``Report.corrected`` is the whole call (a dict)
        with the certain fixes applied. As in ``check_call``, an object type that names nothing
        known (a placeholder, a plugin type) with filters is an ``unknown-object-type`` warning.
        Raises ``TypeError`` / ``ValueError`` for a value JSON cannot hold.
        """
    def check_text(self, text: str, kind: _Kind = "markdown") -> Report:
        """Checks a document (a skill file, a prompt, code) as the ``check`` command checks a file
        of that kind. Raises ``ValueError`` for an unknown kind."""
