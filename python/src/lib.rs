//! `netbox_lsp._native`: the netbox-lsp checks as a Python module (PyO3, abi3 for CPython ≥ 3.10:
//! str keys and values are read as borrowed UTF-8, `PyUnicode_AsUTF8AndSize`, without a copy).
//!
//! Only conversion lives here: Python values in, [`netbox_lsp`]'s findings out as plain Python
//! objects. The NetBox knowledge and every rule stay in the core crate (`filters::check_filters`
//! for one dict, `analysis::analyze` for tool calls and texts). The Python-facing docs are in
//! `python/python/netbox_lsp/_native.pyi`.

use netbox_lsp::analysis::{self, Knowledge};
use netbox_lsp::extract::{self, HostKind, Site, Value};
use netbox_lsp::filters::{self, BufChecked, FilterBuf, FiltersCheck, NewValue};
use netbox_lsp::finding;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::fmt::Write;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// One replacement: `range` (start, end) in `Report.text` (Python str indices) becomes `new_text`.
#[pyclass(frozen, get_all, module = "netbox_lsp")]
#[derive(Clone)]
struct Edit {
    range: (usize, usize),
    new_text: String,
}

#[pymethods]
impl Edit {
    fn __repr__(&self) -> String {
        format!("Edit(range={:?}, new_text={:?})", self.range, self.new_text)
    }
}

/// A fix: a title, its edits, and whether it is the one certain fix.
#[pyclass(frozen, get_all, module = "netbox_lsp")]
#[derive(Clone)]
struct Fix {
    title: String,
    certain: bool,
    edits: Vec<Edit>,
}

#[pymethods]
impl Fix {
    fn __repr__(&self) -> String {
        format!(
            "Fix(title={:?}, certain={})",
            self.title,
            if self.certain { "True" } else { "False" }
        )
    }
}

/// One finding (see docs/diagnostics.md for the codes).
#[pyclass(frozen, get_all, module = "netbox_lsp")]
#[derive(Clone)]
struct Finding {
    code: &'static str,
    severity: &'static str,
    message: String,
    key: Option<String>,
    range: (usize, usize),
    fixes: Vec<Fix>,
}

#[pymethods]
impl Finding {
    fn __repr__(&self) -> String {
        let key = match &self.key {
            Some(k) => format!("{k:?}"),
            None => "None".to_string(),
        };
        format!(
            "Finding(code={:?}, severity={:?}, key={key}, message={:?})",
            self.code, self.severity, self.message
        )
    }

    /// The finding as a dict of plain values (JSON-ready).
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("code", self.code)?;
        d.set_item("severity", self.severity)?;
        d.set_item("message", &self.message)?;
        d.set_item("key", &self.key)?;
        d.set_item("range", self.range)?;
        let fixes = PyList::empty(py);
        for fix in &self.fixes {
            let f = PyDict::new(py);
            f.set_item("title", &fix.title)?;
            f.set_item("certain", fix.certain)?;
            let edits = PyList::empty(py);
            for e in &fix.edits {
                let ed = PyDict::new(py);
                ed.set_item("range", e.range)?;
                ed.set_item("new_text", &e.new_text)?;
                edits.append(ed)?;
            }
            f.set_item("edits", edits)?;
            fixes.append(f)?;
        }
        d.set_item("fixes", fixes)?;
        Ok(d)
    }
}

/// What the lazy `Report.corrected` is computed from. The corrections (a re-check of the fixed
/// call or text, as costly as the first check and more) are made on the first access of
/// `corrected`, not per check: most callers read only the findings.
// One per Report, moved in once: boxing the large variant would cost an allocation per call.
#[allow(clippy::large_enum_variant)]
enum Source {
    /// `check_call` of filters without a finding (held in the report itself: no allocation).
    Clean(Clean),
    /// `check_call` with findings: the core's result and the keys and values as given (kept for
    /// unchanged filters).
    Call(Box<Call>),
    /// `check_tool_call`: the core's findings, the filter key each is about, and the corrected
    /// JSON text ([`corrected_text`]), read back with `json.loads`; made on the first access,
    /// never without findings (the text as given).
    ToolCall(
        Vec<finding::Finding>,
        Vec<Option<String>>,
        OnceLock<Option<String>>,
    ),
    /// `check_text`: the corrected text ([`corrected_text`]) of a document of this kind, as for
    /// `ToolCall`.
    Text(HostKind, Vec<finding::Finding>, OnceLock<Option<String>>),
}

/// `check_call` of filters without a finding: the endpoint checked against
/// (`FiltersCheck::endpoint`), and the target, keys and values as given (lists copied, see
/// [`Filter`]), which are the correction and what the canonical text is written from when
/// `Report.text` is first read.
struct Clean {
    target: Obj,
    /// Shared with the checker's buffer ([`filters::BufChecked`]): no copy per call.
    endpoint: Option<Arc<str>>,
    given: Given,
    /// The canonical text (`FiltersCheck::text`), written on the first read of `Report.text`:
    /// most callers of a clean call read nothing but `ok`.
    text: OnceLock<String>,
}

/// `check_call` with findings (see [`Source::Call`]): the core's findings, the keys and values
/// as given and the core's result (which holds the endpoint).
struct Call {
    findings: Vec<finding::Finding>,
    given: Given,
    /// The core's result (`FiltersCheck`: the canonical text, ranges, values; its `findings`
    /// left empty, they are `findings` above), made at the call from the buffer the dict was
    /// checked in (see `check_call`).
    check: FiltersCheck,
    /// The core's re-checked correction (`FiltersCheck::corrected_checked`), made on the first
    /// access; never for a call without findings, whose correction is itself.
    fixed: OnceLock<Option<filters::Corrected>>,
}

/// One filter as given: its key, its value, and, for a value that holds a list (which the
/// caller may change after the call) of a call without findings, a copy of it as tuples made at
/// the call: the canonical text is written from that copy, so it is the dict's as it was
/// checked. (A call with findings has its text made at the call: no copy.)
type Filter = (Obj, Obj, Option<Obj>);

/// An owned reference to a Python object, released by `Py_DecRef` itself: `Py`'s drop first
/// asks a thread-local whether the GIL is held, a call per object under the stable ABI. The
/// reports that hold these are dropped by the interpreter (`tp_dealloc`) or in `check_call`,
/// both with the GIL held, and read only with it.
struct Obj(std::ptr::NonNull<ffi::PyObject>);

// SAFETY: only touched with the GIL held (see above), as `Py` is.
unsafe impl Send for Obj {}
// SAFETY: as above.
unsafe impl Sync for Obj {}

impl Obj {
    /// A new reference to `v`.
    fn new(v: &Bound<'_, PyAny>) -> Obj {
        // SAFETY: `into_ptr` gives the new reference, never null.
        Obj(unsafe { std::ptr::NonNull::new_unchecked(v.clone().into_ptr()) })
    }

    fn bind<'a, 'py>(&'a self, py: Python<'py>) -> Borrowed<'a, 'py, PyAny> {
        // SAFETY: the reference is owned, so alive while `self` is.
        unsafe { Borrowed::from_ptr(py, self.0.as_ptr()) }
    }
}

impl Drop for Obj {
    fn drop(&mut self) {
        // SAFETY: an owned reference, dropped with the GIL held (see the type's docs).
        unsafe { ffi::Py_DecRef(self.0.as_ptr()) }
    }
}

/// The filters as given, in order: the first [`FEW`] in place (no allocation for a usual
/// dict), the rest on the heap.
#[derive(Default)]
struct Given {
    few: [Option<Filter>; FEW],
    more: Vec<Filter>,
}

/// Filters held in a report without an allocation.
const FEW: usize = 4;

impl Given {
    fn push(&mut self, filter: Filter, i: usize) {
        match self.few.get_mut(i) {
            Some(slot) => *slot = Some(filter),
            None => self.more.push(filter),
        }
    }

    fn get_mut(&mut self, i: usize) -> Option<&mut Filter> {
        match self.few.get_mut(i) {
            Some(slot) => slot.as_mut(),
            None => self.more.get_mut(i - FEW),
        }
    }

    fn get(&self, i: usize) -> Option<&Filter> {
        match self.few.get(i) {
            Some(slot) => slot.as_ref(),
            None => self.more.get(i - FEW),
        }
    }

    fn iter(&self) -> impl Iterator<Item = &Filter> {
        self.few.iter().map_while(Option::as_ref).chain(&self.more)
    }
}

/// `cell`'s value, computed by `make` (without the GIL) on the first access. Not
/// `OnceLock::get_or_init`: a thread waiting there would hold the GIL the computing thread needs
/// back; two threads racing here both compute the same value and the first one stored is kept.
fn once<'a, T: Send>(
    py: Python<'_>,
    cell: &'a OnceLock<T>,
    make: impl Send + FnOnce() -> T,
) -> &'a T {
    if let Some(v) = cell.get() {
        return v;
    }
    let v = py.detach(make);
    let _ = cell.set(v);
    cell.get().expect("set above")
}

/// The findings of one check: a sequence of `Finding` (empty when all is well), the text their
/// ranges point into, and `corrected`.
#[pyclass(frozen, module = "netbox_lsp")]
struct Report {
    /// The core's findings as `Finding` objects, made on the first access that needs them
    /// (`findings`, indexing, iteration, `repr`): a caller that asks only `ok`, `len` or `bool`,
    /// or drops the report, never pays for the Python objects. Never made without a finding.
    list: PyOnceLock<Py<PyList>>,
    text: String,
    source: Source,
    /// The checker whose knowledge `corrected` is computed with (a `Checker`; an [`Obj`], whose
    /// drop asks no thread-local, see there). `None` for a clean `check_call`, whose correction
    /// is the dict as given.
    checker: Option<Obj>,
}

impl Report {
    /// The core's findings, in order.
    fn core(&self) -> &[finding::Finding] {
        match &self.source {
            Source::Clean(_) => &[],
            Source::Call(call) => &call.findings,
            Source::ToolCall(found, ..) | Source::Text(_, found, _) => found,
        }
    }

    /// The findings as a list (a new empty one when there is none).
    fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if self.core().is_empty() {
            return Ok(PyList::empty(py));
        }
        let list = self.list.get_or_try_init(py, || match &self.source {
            Source::Call(call) => {
                let check = &call.check;
                findings_list(py, &call.findings, &check.text, |f| {
                    check
                        .filter_of(f)
                        .and_then(|i| call.given.get(i))
                        .and_then(|g| g.0.bind(py).extract::<String>().ok())
                })
            }
            Source::ToolCall(found, keys, _) => {
                let mut keys = keys.iter();
                findings_list(py, found, &self.text, |_| keys.next().cloned().flatten())
            }
            Source::Text(_, found, _) => findings_list(py, found, &self.text, |_| None),
            Source::Clean(_) => findings_list(py, &[], "", |_| None),
        })?;
        Ok(list.bind(py).clone())
    }
}

#[pymethods]
impl Report {
    /// The findings, in order.
    #[getter]
    fn findings(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        Ok(self.list(py)?.unbind())
    }

    /// The text the ranges index (Python str indices): the given text for `check_text`, the
    /// canonical JSON of the call otherwise.
    #[getter]
    fn text(&self, py: Python<'_>) -> &str {
        match &self.source {
            Source::Call(call) => &call.check.text,
            Source::Clean(clean) => {
                // Not `get_or_init` (see [`once`]): two threads racing here write the same text.
                if clean.text.get().is_none() {
                    let _ = clean.text.set(clean_text(py, clean));
                }
                clean.text.get().map_or("", String::as_str)
            }
            _ => &self.text,
        }
    }

    /// `check_call`: the endpoint path the filters were checked against
    /// (`/api/ipam/ip-addresses/`: the target's, or the one its certain fix names); `None` when
    /// none was found (a finding then says the filters are not checked), and for the other
    /// checks.
    #[getter]
    fn endpoint(&self) -> Option<String> {
        match &self.source {
            Source::Call(call) => call.check.endpoint.as_deref(),
            Source::Clean(clean) => clean.endpoint.as_deref(),
            _ => None,
        }
        .map(|k| format!("/api/{k}/"))
    }

    /// True when no finding is an error or a warning.
    #[getter]
    fn ok(&self) -> bool {
        !self.core().iter().any(|f| {
            matches!(
                f.severity,
                finding::Severity::Error | finding::Severity::Warning
            )
        })
    }

    /// The input with every certain fix applied, in the shape it was given (the filters dict for
    /// `check_call`, the tool-call dict for `check_tool_call`, the text for `check_text`); `None`
    /// when an error or warning has no certain fix, and for `check_call` when the target itself
    /// needs a fix or names no endpoint. Re-checked: given only when, with the certain fixes
    /// applied round after round, the call or text checks with no error or warning. Equal to
    /// the input when there is no finding.
    #[getter]
    fn corrected(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        // SAFETY: `checker` is a `Checker` (set from one in every constructor below).
        let checker =
            (self.checker.as_ref()).map(|c| unsafe { c.bind(py).cast_unchecked::<Checker>() });
        let Some(knowledge) = checker.as_ref().map(|c| &c.get().knowledge) else {
            // A clean `check_call`: no knowledge needed.
            return match &self.source {
                Source::Clean(clean) => clean_corrected(py, clean),
                _ => Ok(None),
            };
        };
        let found = !self.core().is_empty();
        match &self.source {
            Source::Clean(clean) => clean_corrected(py, clean),
            Source::Call(call) => {
                let (check, given, fixed) = (&call.check, &call.given, &call.fixed);
                let identity;
                let fixed = if found {
                    let findings = &call.findings;
                    once(py, fixed, || {
                        check.corrected_checked_of(findings, knowledge)
                    })
                    .as_ref()
                } else {
                    identity = check.corrected_of(&call.findings);
                    identity.as_ref()
                };
                // A target that needs a fix is not the call's to keep: the filters dict alone
                // cannot carry the new target, and sent to the old one it fails or goes
                // unchecked. The findings name the target's fix (and the filters were checked
                // against it, `endpoint`).
                let Some(fixed) = fixed.filter(|f| f.target.is_none()) else {
                    return Ok(None);
                };
                let d = PyDict::new(py);
                for (i, key, value) in &fixed.filters {
                    let (i, key) = (*i, key.as_str());
                    let Some((given_key, given_value, _)) = given.get(i) else {
                        return Ok(None);
                    };
                    let same_key = given_key.bind(py).cast::<PyString>()?.to_str()? == key;
                    let k: Bound<'_, PyAny> = if same_key {
                        given_key.bind(py).to_owned()
                    } else {
                        PyString::new(py, key).into_any()
                    };
                    match value {
                        NewValue::Same => d.set_item(k, given_value.bind(py))?,
                        NewValue::Json(v) => d.set_item(k, json_to_py(py, v)?)?,
                    }
                }
                Ok(Some(d.into_any().unbind()))
            }
            Source::ToolCall(core, _, fixed) => {
                let text = if found {
                    let text = &self.text;
                    let fixed = once(py, fixed, || {
                        corrected_text(text, HostKind::Json, core, knowledge, true)
                    });
                    match fixed {
                        Some(t) => t.as_str(),
                        None => return Ok(None),
                    }
                } else {
                    self.text.as_str()
                };
                let loads = py.import("json")?.getattr("loads")?;
                Ok(Some(loads.call1((text,))?.unbind()))
            }
            Source::Text(host, core, fixed) => {
                if !found {
                    return Ok(Some(PyString::new(py, &self.text).into_any().unbind()));
                }
                let (text, host) = (&self.text, *host);
                let fixed = once(py, fixed, || {
                    corrected_text(text, host, core, knowledge, false)
                });
                Ok(fixed
                    .as_ref()
                    .map(|t| PyString::new(py, t).into_any().unbind()))
            }
        }
    }

    fn __len__(&self) -> usize {
        self.core().len()
    }

    fn __bool__(&self) -> bool {
        !self.core().is_empty()
    }

    fn __getitem__<'py>(&self, py: Python<'py>, i: isize) -> PyResult<Bound<'py, PyAny>> {
        let list = self.list(py)?;
        let n = list.len() as isize;
        let j = if i < 0 { i + n } else { i };
        if !(0..n).contains(&j) {
            return Err(pyo3::exceptions::PyIndexError::new_err(
                "finding index out of range",
            ));
        }
        list.get_item(j as usize)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.list(py)?.as_any().try_iter()?.into_any())
    }

    fn __repr__(&self) -> String {
        let codes: Vec<&str> = self.core().iter().map(|f| f.code).collect();
        format!("Report({codes:?})")
    }
}

/// `Report.corrected` of a clean `check_call`: what `FiltersCheck::corrected` gives filters
/// without a finding: each key and value as given, or none when two keys read the same (only
/// str subclasses can be two keys of one dict and read the same).
fn clean_corrected(py: Python<'_>, clean: &Clean) -> PyResult<Option<Py<PyAny>>> {
    let given = &clean.given;
    let keys = given
        .iter()
        .map(|(k, ..)| Ok(k.bind(py).cast::<PyString>()?))
        .collect::<PyResult<Vec<_>>>()?;
    if !keys.iter().all(|k| k.is_exact_instance_of::<PyString>()) {
        let keys = keys
            .iter()
            .map(|k| k.to_str())
            .collect::<PyResult<Vec<&str>>>()?;
        if (1..keys.len()).any(|i| keys[..i].contains(&keys[i])) {
            return Ok(None);
        }
    }
    let d = PyDict::new(py);
    for (k, v, _) in given.iter() {
        d.set_item(k.bind(py), v.bind(py))?;
    }
    Ok(Some(d.into_any().unbind()))
}

/// The checker: the knowledge of one NetBox version (or of an instance index), loaded once.
#[pyclass(frozen, module = "netbox_lsp")]
struct Checker {
    knowledge: Knowledge,
    notes: Vec<String>,
    /// `check_call`'s buffers, reused call after call (a thread that finds them taken uses
    /// its own).
    buf: Mutex<FilterBuf>,
}

#[pymethods]
impl Checker {
    /// Loads the knowledge of a shipped NetBox release (`"4.6"`, `"4.6.8"`; default: the
    /// newest) or of an index file from `netbox-lsp index build` (a release or a live instance).
    #[new]
    #[pyo3(signature = (netbox_version=None, *, index=None, graphql_schema=None))]
    fn new(
        netbox_version: Option<&str>,
        index: Option<PathBuf>,
        graphql_schema: Option<PathBuf>,
    ) -> PyResult<Self> {
        let (knowledge, notes) = netbox_lsp::knowledge::knowledge_for(
            netbox_version,
            index.as_deref(),
            graphql_schema.as_deref(),
        )
        .map_err(PyValueError::new_err)?;
        Ok(Checker {
            knowledge,
            notes,
            buf: Mutex::new(FilterBuf::default()),
        })
    }

    /// The NetBox release the filter index is of (`4.6.8`), or None without an index.
    #[getter]
    fn netbox_version(&self) -> Option<String> {
        self.knowledge
            .index
            .as_ref()
            .map(|i| i.netbox_version.clone())
    }

    /// Notes from loading the knowledge (a version fallback, checks that are off).
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn __repr__(&self) -> String {
        match self.netbox_version() {
            Some(v) => format!("Checker(netbox_version={v:?})"),
            None => "Checker(netbox_version=None)".to_string(),
        }
    }

    /// Checks the filters of one REST call before it is sent. `target`: an object type as the
    /// NetBox MCP tools take it (`dcim.device`) or an endpoint path (`/api/dcim/devices/`).
    /// `filters`: a dict with str keys; None is a value the client drops (`dropped-value`),
    /// lists send the key once per element, values that are not literals are not judged.
    fn check_call<'py>(
        slf: &Bound<'py, Self>,
        target: &Bound<'py, PyString>,
        filters: &Bound<'py, PyDict>,
    ) -> PyResult<Report> {
        let py = slf.py();
        let checker = slf.get();
        let mut guard = checker.buf.try_lock();
        let mut own;
        let buf = match guard.as_deref_mut() {
            Ok(buf) => buf,
            Err(_) => {
                own = FilterBuf::default();
                &mut own
            }
        };
        // `utf8` is `to_str` without pyo3's wrapping (the same call, the same error).
        buf.start(utf8(target.as_any().as_borrowed()).ok_or_else(|| PyErr::fetch(py))?);
        let mut given = Given::default();
        let (mut pos, mut k, mut v) = (0, std::ptr::null_mut(), std::ptr::null_mut());
        let mut i = 0;
        // The filters whose value holds a list (the first 64; the rest in `more_listed`), and
        // of the first 64 those whose value is a list of ints and strs ([`FLAT`]).
        let (mut listed_few, mut more_listed) = (0u64, Vec::new());
        let mut flat_few = 0u64;
        // `PyDict_Next` itself, with borrowed references: pyo3's iterator asks the dict's length
        // at every step (a call under the stable ABI) and counts references. No Python code runs
        // in the loop (type checks, reading str and numbers in place), so the dict cannot change.
        // SAFETY: `filters` is a dict, `pos`, `k` and `v` are what `PyDict_Next` takes; `k` and
        // `v` are borrowed from the dict, which is alive and unchanged during the loop.
        while unsafe { ffi::PyDict_Next(filters.as_ptr(), &mut pos, &mut k, &mut v) } != 0 {
            let (k, v) = unsafe { (Borrowed::from_ptr(py, k), Borrowed::from_ptr(py, v)) };
            // An exact str (every key but a str subclass's) by a type pointer compare; the
            // subclass check calls into the interpreter.
            if !k.is_exact_instance_of::<PyString>() && !k.is_instance_of::<PyString>() {
                return Err(PyTypeError::new_err("filter keys must be str"));
            }
            let key = utf8(k).ok_or_else(|| PyErr::fetch(py))?;
            let held = set_value(buf.push(key), &v, 0);
            if held & LISTED != 0 {
                if i < 64 {
                    listed_few |= 1 << i;
                    if held & FLAT != 0 {
                        flat_few |= 1 << i;
                    }
                } else {
                    more_listed.push(i);
                }
            }
            given.push((Obj::new(&k), Obj::new(&v), None), i);
            i += 1;
        }
        // A clean call's report needs no knowledge (its correction is the dict as given).
        let mut knows = None;
        let source = match filters::check_filters_buf(&checker.knowledge, buf) {
            BufChecked::Clean { endpoint } => {
                // The values that hold a list, copied as they are (as they were read: no Python
                // code ran since): the canonical text is written from the copies when asked, and
                // the caller may change the lists after the call.
                let few = std::iter::from_fn(|| {
                    let j = listed_few.trailing_zeros() as usize;
                    listed_few &= listed_few.wrapping_sub(1);
                    (j < 64).then_some(j)
                });
                for j in few.chain(more_listed) {
                    if let Some(filter) = given.get_mut(j) {
                        let flat = j < 64 && flat_few & (1 << j) != 0;
                        filter.2 = Some(freeze(&filter.1.bind(py), flat, 0)?);
                    }
                }
                Source::Clean(Clean {
                    target: Obj::new(target.as_any()),
                    endpoint,
                    given,
                    text: OnceLock::new(),
                })
            }
            // A call with findings gets its text and ranges now, from the buffer as it is:
            // their reader (the messages, `.corrected`) is nearly every caller of such a
            // report, and made later they would need the dict converted a second time
            // (~0.5 µs more per read of the messages).
            BufChecked::Found { findings, endpoint } => {
                knows = Some(Obj::new(slf.as_any()));
                Source::Call(Box::new(Call {
                    check: buf.checked(endpoint.as_deref()),
                    findings,
                    given,
                    fixed: OnceLock::new(),
                }))
            }
        };
        drop(guard);
        Ok(Report {
            list: PyOnceLock::new(),
            // Held by the source (the getter reads it there): no copy per call.
            text: String::new(),
            source,
            checker: knows,
        })
    }

    /// Checks a tool call as an agent emits it (`{"name": "netbox_get_objects", "arguments":
    /// {...}}`, arguments also as a JSON string; or the whole call as JSON text), recognised as
    /// `netbox-lsp check` reads a JSON tool call. `Report.corrected` is the whole call with the
    /// certain fixes applied (parsed, also when the call was given as text).
    fn check_tool_call<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
        call: &Bound<'py, PyAny>,
    ) -> PyResult<Report> {
        // A JSON text is read as given; a dict is written out as JSON (its order kept).
        let text = match call.cast::<PyString>() {
            Ok(s) => s.to_str()?.to_owned(),
            Err(_) => {
                let mut text = String::new();
                write_json(&mut text, call, 0)?;
                text
            }
        };
        let knowledge = &slf.get().knowledge;
        let (found, keys) = py.detach(|| {
            // As a call about to be sent: an object type that resolves to nothing (a
            // placeholder) is a warning here, as in `check_call`, where a file fails open.
            let found = analysis::analyze_outgoing(&text, knowledge);
            let keys = if found.is_empty() {
                Vec::new()
            } else {
                let sites = extract::extract(&text, HostKind::Json).sites;
                found
                    .iter()
                    .map(|f| key_in_sites(&sites, &f.range))
                    .collect()
            };
            (found, keys)
        });
        Ok(Report {
            list: PyOnceLock::new(),
            text,
            source: Source::ToolCall(found, keys, OnceLock::new()),
            checker: Some(Obj::new(slf.as_any())),
        })
    }

    /// Checks a document as `netbox-lsp check` checks a file of that kind: markdown, python,
    /// yaml, json, graphql or text. Ranges are str indices into `text`.
    #[pyo3(signature = (text, kind="markdown"))]
    fn check_text(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        text: String,
        kind: &str,
    ) -> PyResult<Report> {
        let host = match kind {
            "markdown" | "md" => HostKind::Markdown,
            "python" | "py" => HostKind::Python,
            "yaml" | "yml" => HostKind::Yaml,
            "json" => HostKind::Json,
            "graphql" => HostKind::Graphql,
            "text" | "txt" => HostKind::Text,
            other => {
                return Err(PyValueError::new_err(format!(
                    "kind {other:?}: expected one of markdown, python, yaml, json, graphql, text"
                )))
            }
        };
        let knowledge = &slf.get().knowledge;
        let found = py.detach(|| analysis::analyze(&text, host, knowledge));
        Ok(Report {
            list: PyOnceLock::new(),
            text,
            source: Source::Text(host, found, OnceLock::new()),
            checker: Some(Obj::new(slf.as_any())),
        })
    }
}

/// Nesting deeper than this is not followed (a value that deep is no filter).
const MAX_DEPTH: usize = 64;

/// A str's text, read in place (`PyUnicode_AsUTF8AndSize`); `None` with the error set when it
/// is no UTF-8 (a lone surrogate). `s` must be a str (or a subclass).
fn utf8<'a>(s: Borrowed<'a, '_, PyAny>) -> Option<&'a str> {
    let mut len: ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a str; the UTF-8 buffer it returns lives as long as the str (`'a`).
    unsafe {
        let p = ffi::PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut len);
        if p.is_null() {
            return None;
        }
        let bytes = std::slice::from_raw_parts(p.cast::<u8>(), len as usize);
        Some(std::str::from_utf8_unchecked(bytes))
    }
}

/// An int's value when it fits an i64 (`None` beyond, without an error set). `v` must be an int.
fn int_of(v: &Bound<'_, PyAny>) -> Option<i64> {
    let mut overflow = 0;
    // SAFETY: `v` is an int, for which this sets no error (beyond i64 it sets `overflow`).
    let n = unsafe { ffi::PyLong_AsLongLongAndOverflow(v.as_ptr(), &mut overflow) };
    if overflow != 0 || (n == -1 && unsafe { !ffi::PyErr_Occurred().is_null() }) {
        // SAFETY: the GIL is held (`v` is bound).
        unsafe { ffi::PyErr_Clear() };
        return None;
    }
    Some(n)
}

/// An int as the core reads it: [`Value::Int`] when it fits an i64, else not judged. (Not
/// `unwrap_or(Value::Expr)`, which drops the unused `Value::Expr` by a call.)
fn int_value(v: &Bound<'_, PyAny>) -> Value {
    match int_of(v) {
        Some(n) => Value::Int(n),
        None => Value::Expr,
    }
}

/// Sets `slot` to a Python value as the core reads a literal: None → null, bool, int (i64),
/// float, str, list/tuple → list, dict → mapping; anything else (and an int beyond i64) is not
/// judged. Strings and lists are written into the slot's own buffers when it has them
/// ([`filters::set_str`], [`filters::set_list`]). Gives [`LISTED`] when the value read holds a
/// list (at any depth): what the caller may change after the call (see [`freeze`]); with
/// [`FLAT`] when it is a list (exactly) of ints and strs (exactly).
fn set_value(slot: &mut Value, v: &Bound<'_, PyAny>, depth: usize) -> u8 {
    // The exact types first, by a type pointer compare (the subclass checks below call into
    // the interpreter under the stable ABI): an int id, a str, a list of either. The branches
    // below give the same values for them.
    if v.is_exact_instance_of::<PyInt>() {
        put(slot, int_value(v));
        return 0;
    }
    if v.is_exact_instance_of::<PyString>() {
        set_string(slot, v);
        return 0;
    }
    if v.is_exact_instance_of::<PyList>() {
        return LISTED | set_items(slot, v, false, depth);
    }
    // Ids first: the most common filter value (bool is an int subclass).
    if v.is_instance_of::<PyInt>() {
        put(
            slot,
            match v.cast_exact::<PyBool>() {
                Ok(b) => Value::Bool(b.is_true()),
                Err(_) => int_value(v),
            },
        );
    } else if v.is_none() {
        put(slot, Value::Null);
    } else if v.is_instance_of::<PyString>() {
        set_string(slot, v);
    } else if v.is_instance_of::<PyFloat>() {
        put(
            slot,
            v.extract::<f64>().map(Value::Float).unwrap_or(Value::Expr),
        );
    } else if v.is_instance_of::<PyList>() {
        set_items(slot, v, false, depth);
        return LISTED;
    } else if v.is_instance_of::<PyTuple>() {
        return set_items(slot, v, true, depth) & LISTED;
    } else if v.is_instance_of::<PyDict>() {
        put(slot, Value::Map);
    } else {
        put(slot, Value::Expr);
    }
    0
}

/// [`set_value`]: the value holds a list.
const LISTED: u8 = 1;
/// [`set_value`], [`set_items`]: every item is an int or a str (exactly: a list of them can be
/// copied by the interpreter alone, [`freeze`]).
const FLAT: u8 = 2;

/// Sets `slot` to `new`. The slot usually holds the value of the same filter of the dict
/// before, a number as often as not: one that owns no buffer is overwritten without the call
/// that drops a `Value`.
#[inline(always)]
fn put(slot: &mut Value, new: Value) {
    if matches!(
        slot,
        Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Null | Value::Map | Value::Expr
    ) {
        // Owns nothing: forgetting it leaks nothing.
        std::mem::forget(std::mem::replace(slot, new));
    } else {
        *slot = new;
    }
}

/// Sets `slot` to a str's text (`s` is a str); a str that is no UTF-8 (a lone surrogate) is not
/// judged.
fn set_string(slot: &mut Value, s: &Bound<'_, PyAny>) {
    match utf8(s.as_borrowed()) {
        Some(s) => filters::set_str(slot, s),
        None => {
            // SAFETY: the GIL is held (`s` is bound); the error `utf8` left is dropped.
            unsafe { ffi::PyErr_Clear() };
            put(slot, Value::Expr);
        }
    }
}

/// The items of a list or tuple, read in place: `len`, then [`Seq::get`] (a borrowed reference
/// each).
struct Seq<'a, 'py> {
    seq: &'a Bound<'py, PyAny>,
    tuple: bool,
    len: usize,
}

impl<'a, 'py> Seq<'a, 'py> {
    /// `seq` must be a list or a tuple (or a subclass's instance).
    fn new(seq: &'a Bound<'py, PyAny>, tuple: bool) -> Self {
        // SAFETY: `seq` is a tuple or list as `tuple` says; the sizes are those of its storage.
        let len = unsafe {
            if tuple {
                ffi::PyTuple_Size(seq.as_ptr())
            } else {
                ffi::PyList_Size(seq.as_ptr())
            }
        };
        Seq {
            seq,
            tuple,
            len: len.max(0) as usize,
        }
    }

    /// Item `i` (`i < len`); no Python code runs between [`Seq::new`] and here, so the list
    /// has not changed.
    fn get(&self, i: usize) -> Option<Borrowed<'a, 'py, PyAny>> {
        // SAFETY: as for the exact types' macros, the storage is read; an index past the end
        // gives null with an IndexError set, cleared here.
        unsafe {
            let p = if self.tuple {
                ffi::PyTuple_GetItem(self.seq.as_ptr(), i as ffi::Py_ssize_t)
            } else {
                ffi::PyList_GetItem(self.seq.as_ptr(), i as ffi::Py_ssize_t)
            };
            if p.is_null() {
                ffi::PyErr_Clear();
                return None;
            }
            Some(Borrowed::from_ptr(self.seq.py(), p))
        }
    }
}

/// Sets `slot` to a list of the items of `seq` (a list, or a tuple when `tuple`), [`MAX_DEPTH`]
/// deep at most. Gives [`LISTED`] when an item holds a list, [`FLAT`] when every item is an int
/// or a str (exactly).
fn set_items(slot: &mut Value, seq: &Bound<'_, PyAny>, tuple: bool, depth: usize) -> u8 {
    if depth >= MAX_DEPTH {
        put(slot, Value::Expr);
        return 0;
    }
    let seq = Seq::new(seq, tuple);
    let slots = filters::set_list(slot);
    let mut n = 0;
    let mut held = FLAT;
    while let Some(it) = (n < seq.len).then(|| seq.get(n)).flatten() {
        if n == slots.len() {
            slots.push((Value::Expr, 0..0));
        }
        // An int or a str (the usual item) read here as `set_value` reads it, without the call.
        let slot = &mut slots[n].0;
        if it.is_exact_instance_of::<PyInt>() {
            put(slot, int_value(&it));
        } else if it.is_exact_instance_of::<PyString>() {
            set_string(slot, &it);
        } else {
            held &= !FLAT;
            held |= set_value(slot, &it, depth + 1) & LISTED;
        }
        n += 1;
    }
    slots.truncate(n);
    held
}

/// A value that holds a list, as it is now: lists become tuples, at any depth (which
/// [`set_value`] reads the same way). For a value the caller may change after the call. `flat`:
/// `v` is a list of ints and strs ([`FLAT`], read with no Python code run since).
fn freeze(v: &Bound<'_, PyAny>, flat: bool, depth: usize) -> PyResult<Obj> {
    if flat {
        // SAFETY: `v` is a list; a new reference or null with the error set.
        return unsafe { Bound::from_owned_ptr_or_err(v.py(), ffi::PyList_AsTuple(v.as_ptr())) }
            .map(|t| Obj::new(&t));
    }
    let list = v.is_instance_of::<PyList>();
    if !(list || v.is_instance_of::<PyTuple>()) || depth >= MAX_DEPTH {
        return Ok(Obj::new(v));
    }
    let seq = Seq::new(v, !list);
    let scalar = |it: &Bound<'_, PyAny>| {
        it.is_exact_instance_of::<PyInt>()
            || it.is_exact_instance_of::<PyString>()
            || !(it.is_instance_of::<PyList>() || it.is_instance_of::<PyTuple>())
    };
    // A list of ints or strs (the usual one): one copy by the interpreter.
    if v.is_exact_instance_of::<PyList>()
        && (0..seq.len).all(|i| seq.get(i).is_some_and(|it| scalar(&it)))
    {
        // SAFETY: `v` is a list; a new reference or null with the error set.
        return unsafe { Bound::from_owned_ptr_or_err(v.py(), ffi::PyList_AsTuple(v.as_ptr())) }
            .map(|t| Obj::new(&t));
    }
    let mut items = Vec::with_capacity(seq.len);
    for i in 0..seq.len {
        if let Some(it) = seq.get(i) {
            items.push(freeze(&it, false, depth + 1)?);
        }
    }
    let items = items.iter().map(|o| o.bind(v.py()));
    Ok(Obj::new(PyTuple::new(v.py(), items)?.as_any()))
}

/// The canonical text of a clean call (`FiltersCheck::text`), written from the target, keys and
/// values as given (lists as copied at the call): what `check_filters` writes for them.
fn clean_text(py: Python<'_>, clean: &Clean) -> String {
    refill(py, &clean.target, &clean.given).text()
}

/// A buffer holding the dict `check_call` checked: the target, keys and values as given (lists
/// as copied at the call), read as at the call.
fn refill(py: Python<'_>, target: &Obj, given: &Given) -> FilterBuf {
    let mut buf = FilterBuf::default();
    // Both read at the call already, so UTF-8.
    buf.start(utf8(target.bind(py)).unwrap_or_default());
    for (k, v, copy) in given.iter() {
        let key = utf8(k.bind(py)).unwrap_or_default();
        set_value(buf.push(key), &copy.as_ref().unwrap_or(v).bind(py), 0);
    }
    buf
}

/// Writes a JSON-shaped Python value (dict with str keys, list/tuple, str, int, float, bool,
/// None) as JSON text, keeping the dict order. Errors on anything else.
fn write_json(out: &mut String, v: &Bound<'_, PyAny>, depth: usize) -> PyResult<()> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err("tool call nested too deeply"));
    }
    if v.is_none() {
        out.push_str("null");
    } else if let Ok(s) = v.cast::<PyString>() {
        out.push_str(&json_string(s.to_str()?));
    } else if let Ok(b) = v.cast_exact::<PyBool>() {
        out.push_str(if b.is_true() { "true" } else { "false" });
    } else if v.is_instance_of::<PyInt>() {
        let _ = write!(out, "{}", v.str()?.to_str()?);
    } else if v.is_instance_of::<PyFloat>() {
        let f: f64 = v.extract()?;
        if !f.is_finite() {
            return Err(PyValueError::new_err(
                "tool call holds a float JSON cannot represent (nan or inf)",
            ));
        }
        out.push_str(&format!("{f:?}"));
    } else if let Ok(d) = v.cast::<PyDict>() {
        out.push('{');
        for (i, (k, val)) in d.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let k = k
                .cast::<PyString>()
                .map_err(|_| PyTypeError::new_err("tool call dict keys must be str"))?;
            out.push_str(&json_string(k.to_str()?));
            out.push_str(": ");
            write_json(out, &val, depth + 1)?;
        }
        out.push('}');
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        out.push('[');
        for (i, item) in v.try_iter()?.enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_json(out, &item?, depth + 1)?;
        }
        out.push(']');
    } else {
        return Err(PyTypeError::new_err(format!(
            "tool call holds a {} value, which is not JSON",
            v.get_type().name()?
        )));
    }
    Ok(())
}

/// `s` as a JSON string literal (serde_json's escaping; a `&str` always serialises).
fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A JSON value as a Python value (what a fix wrote: a string, number, list, null).
fn json_to_py(py: Python<'_>, v: &serde_json::Value) -> PyResult<Py<PyAny>> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => py.None(),
        J::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any().unbind(),
            (None, Some(f)) => f.into_pyobject(py)?.into_any().unbind(),
            _ => py.None(),
        },
        J::String(s) => PyString::new(py, s).into_any().unbind(),
        J::Array(items) => {
            let l = PyList::empty(py);
            for i in items {
                l.append(json_to_py(py, i)?)?;
            }
            l.into_any().unbind()
        }
        J::Object(map) => {
            let d = PyDict::new(py);
            for (k, v) in map {
                d.set_item(k, json_to_py(py, v)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// The filter key of the REST call in `sites` whose key or value holds `range`.
fn key_in_sites(sites: &[Site], range: &Range<usize>) -> Option<String> {
    sites.iter().find_map(|s| match s {
        Site::Rest(call) => call
            .filters
            .iter()
            .find(|e| {
                range.start >= e.key_range.start.min(e.value_range.start)
                    && range.end <= e.value_range.end.max(e.key_range.end)
            })
            .map(|e| e.key.to_string()),
        _ => None,
    })
}

/// `text` (whose findings are `found`) with fix-all applied as `netbox-lsp check --fix` applies
/// it (rounds of certain fixes), when the result checks with no error or warning; `None`
/// otherwise (a fix needs a choice, or a fix shows a problem the first check could not see).
/// `outgoing`: re-checked as a tool call about to be sent ([`analysis::analyze_outgoing`]).
fn corrected_text(
    text: &str,
    host: HostKind,
    found: &[finding::Finding],
    knowledge: &Knowledge,
    outgoing: bool,
) -> Option<String> {
    let blocks = |f: &finding::Finding| {
        matches!(
            f.severity,
            finding::Severity::Error | finding::Severity::Warning
        )
    };
    // An error or warning without a certain fix: no rounds needed to say so.
    netbox_lsp::fix::all_certain_edits(found)?;
    let planned = netbox_lsp::cli::fix::plan(text, host, knowledge, &|f| f);
    let again = if outgoing {
        analysis::analyze_outgoing(&planned.fixed, knowledge)
    } else {
        analysis::analyze(&planned.fixed, host, knowledge)
    };
    (!again.iter().any(blocks)).then_some(planned.fixed)
}

/// Byte offsets in `text` → Python str indices (code points), for sorted or unsorted offsets.
struct CharIndex<'a> {
    text: &'a str,
    ascii: bool,
}

impl CharIndex<'_> {
    fn at(&self, byte: usize) -> usize {
        if self.ascii {
            return byte.min(self.text.len());
        }
        let mut b = byte.min(self.text.len());
        while !self.text.is_char_boundary(b) {
            b -= 1;
        }
        self.text[..b].chars().count()
    }

    fn range(&self, r: &Range<usize>) -> (usize, usize) {
        (self.at(r.start), self.at(r.end))
    }
}

/// The findings as a list of `Finding` (`key_of` is called once per finding, in order).
fn findings_list(
    py: Python<'_>,
    found: &[finding::Finding],
    text: &str,
    mut key_of: impl FnMut(&finding::Finding) -> Option<String>,
) -> PyResult<Py<PyList>> {
    let list = PyList::empty(py);
    let ix = CharIndex {
        text,
        ascii: text.is_ascii(),
    };
    for f in found {
        let fixes = f
            .fixes
            .iter()
            .map(|x| Fix {
                title: x.title.clone(),
                certain: x.certain,
                edits: x
                    .edits
                    .iter()
                    .map(|e| Edit {
                        range: ix.range(&e.range),
                        new_text: e.new_text.clone(),
                    })
                    .collect(),
            })
            .collect();
        list.append(Finding {
            code: f.code,
            severity: f.severity.as_str(),
            message: f.message.clone(),
            key: key_of(f),
            range: ix.range(&f.range),
            fixes,
        })?;
    }
    Ok(list.unbind())
}

/// The shipped NetBox releases (`["4.3.3", ..., "4.6.8"]`).
#[pyfunction]
fn shipped_versions() -> Vec<&'static str> {
    netbox_lsp::index::embedded::RELEASES
        .iter()
        .map(|r| r.version)
        .collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Checker>()?;
    m.add_class::<Report>()?;
    m.add_class::<Finding>()?;
    m.add_class::<Fix>()?;
    m.add_class::<Edit>()?;
    m.add_function(wrap_pyfunction!(shipped_versions, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
