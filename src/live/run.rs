//! Sends a plan's requests through a [`Transport`]: a request budget per run, an overall
//! deadline per run, a per-run cache of identical requests (the bare request of an endpoint is
//! sent once however many calls use it), at most [`MAX_CONCURRENCY`] requests at a time, and a
//! polite rate (a minimum interval between the starts of two requests). After a request fails,
//! nothing more is sent in that run; when the deadline passes, the requests in flight are
//! stopped and nothing more is sent.

use super::digest::Digest;
use super::plan::Plan;
use super::{Answer, Answers, Request, Skip};
use crate::sync::lock;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

/// Requests in flight at most.
pub const MAX_CONCURRENCY: usize = 4;
/// Default request budget of a run (`--live-max-requests`).
pub const DEFAULT_MAX_REQUESTS: usize = 200;
/// Default rate: at most this many request starts per second.
pub const DEFAULT_RATE: u32 = 10;
/// Highest rate accepted.
pub const MAX_RATE: u32 = 20;
/// Default overall deadline of a run (`--live-deadline`), in seconds.
pub const DEFAULT_DEADLINE_SECS: u64 = 60;

/// One answer as a transport hands it over: the HTTP status and the digest of the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub digest: Digest,
}

/// Sends one request to the configured NetBox. Implemented over HTTP by [`super::http`];
/// tests may use another.
pub trait Transport: Sync {
    /// The answer (any HTTP status), or why there is none (the message never holds the token).
    fn send(&self, req: &Request) -> Result<Reply, String>;

    /// Stops the requests in flight (the run's deadline passed); later ones fail at once.
    fn abort(&self) {}
}

/// How much a run may send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Requests a run sends at most (cache hits are free).
    pub max_requests: usize,
    /// Requests in flight at most (clamped to 1..=[`MAX_CONCURRENCY`]).
    pub concurrency: usize,
    /// Request starts per second at most (clamped to 1..=[`MAX_RATE`]).
    pub rate: u32,
    /// The whole run's time, from the runner's creation (`--live-deadline`).
    pub deadline: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_requests: DEFAULT_MAX_REQUESTS,
            concurrency: MAX_CONCURRENCY,
            rate: DEFAULT_RATE,
            deadline: Duration::from_secs(DEFAULT_DEADLINE_SECS),
        }
    }
}

/// One run: its budget, cache and failure state. Reuse it for several documents of the same
/// run (the CLI's files) so the budget and the cache span them.
pub struct Runner<'a> {
    transport: &'a dyn Transport,
    limits: Limits,
    cache: Mutex<HashMap<Request, Answer>>,
    sent: AtomicUsize,
    /// The first failure: nothing more is sent after it.
    failed: Mutex<Option<String>>,
    next_start: Mutex<Instant>,
    /// When the run must end.
    ends: Instant,
    /// The deadline passed: nothing more is sent.
    expired: AtomicBool,
}

impl<'a> Runner<'a> {
    pub fn new(transport: &'a dyn Transport, limits: Limits) -> Runner<'a> {
        Runner {
            transport,
            limits,
            cache: Mutex::new(HashMap::new()),
            sent: AtomicUsize::new(0),
            failed: Mutex::new(None),
            next_start: Mutex::new(Instant::now()),
            ends: Instant::now() + limits.deadline,
            expired: AtomicBool::new(false),
        }
    }

    /// Time since the run began.
    pub fn elapsed(&self) -> Duration {
        (self.ends - self.limits.deadline).elapsed()
    }

    /// True once the run's deadline passed.
    pub fn expired(&self) -> bool {
        self.expired.load(Ordering::SeqCst) || Instant::now() >= self.ends
    }

    /// Why a request is not sent after the deadline.
    fn deadline_skip(&self) -> Skip {
        Skip::new(
            "deadline",
            format!(
                "the run's deadline of {} s passed (--live-deadline)",
                self.limits.deadline.as_secs()
            ),
        )
    }

    /// A runner whose cache already holds `answers` (their requests are not sent again).
    pub fn with_answers(
        transport: &'a dyn Transport,
        limits: Limits,
        answers: &Answers,
    ) -> Runner<'a> {
        let r = Runner::new(transport, limits);
        lock(&r.cache).extend(
            answers
                .by_request
                .iter()
                .filter(|(_, a)| matches!(a, Answer::Reply { .. }))
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        r
    }

    /// Requests sent so far (not counting cache hits).
    pub fn sent(&self) -> usize {
        self.sent.load(Ordering::SeqCst)
    }

    /// The first failure of the run, if any.
    pub fn failure(&self) -> Option<String> {
        lock(&self.failed).clone()
    }

    /// Sends what `plan` needs and returns the answers: first each call's bare and filtered
    /// request and each GraphQL operation (a group is sent whole or not at all, in document
    /// order, while the budget lasts), then the follow-ups the first answers leave open.
    pub fn check(&self, plan: &Plan) -> Answers {
        let mut answers = Answers::default();
        // A watchdog: at the deadline, the requests in flight are stopped.
        let (done, wait) = mpsc::channel::<()>();
        std::thread::scope(|s| {
            s.spawn(move || {
                let left = self.ends.saturating_duration_since(Instant::now());
                if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(left) {
                    self.expired.store(true, Ordering::SeqCst);
                    self.transport.abort();
                }
            });
            self.fetch_groups(&plan.requests(), &mut answers);
            let more: Vec<Vec<Request>> = plan
                .follow_ups(&answers)
                .into_iter()
                .map(|r| vec![r])
                .collect();
            self.fetch_groups(&more, &mut answers);
            let _ = done.send(());
        });
        answers.at = crate::index::instance::now_rfc3339();
        answers
    }

    fn fetch_groups(&self, groups: &[Vec<Request>], answers: &mut Answers) {
        let mut todo: Vec<Request> = Vec::new();
        let mut later: Vec<(Request, Skip)> = Vec::new();
        {
            let cache = lock(&self.cache);
            let mut planned: std::collections::HashSet<&Request> = Default::default();
            let mut budget = self.limits.max_requests.saturating_sub(self.sent());
            for g in groups {
                let new: Vec<&Request> = g
                    .iter()
                    .filter(|r| !cache.contains_key(*r) && !planned.contains(*r))
                    .collect();
                if new.len() <= budget {
                    budget -= new.len();
                    for r in new {
                        planned.insert(r);
                        todo.push(r.clone());
                    }
                } else {
                    let why = Skip::new(
                        "budget",
                        format!(
                            "the run's budget of {} requests is used up (--live-max-requests, editor setting live.maxRequests)",
                            self.limits.max_requests
                        ),
                    );
                    for r in new {
                        later.push((r.clone(), why.clone()));
                    }
                }
            }
        }
        self.send_all(&todo);
        let cache = lock(&self.cache);
        for g in groups {
            for r in g {
                if let Some(a) = cache.get(r) {
                    answers.by_request.insert(r.clone(), a.clone());
                }
            }
        }
        for (r, why) in later {
            answers.by_request.entry(r).or_insert(Answer::NotSent(why));
        }
    }

    /// Sends `todo` (no duplicates) with at most `concurrency` in flight, each start at least
    /// `1/rate` s after the previous one; answers go to the cache.
    fn send_all(&self, todo: &[Request]) {
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(self.failure().is_some());
        let workers = self
            .limits
            .concurrency
            .clamp(1, MAX_CONCURRENCY)
            .min(todo.len());
        let interval = Duration::from_secs(1) / self.limits.rate.clamp(1, MAX_RATE);
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(req) = todo.get(i) else { break };
                    if self.expired() {
                        lock(&self.cache)
                            .insert(req.clone(), Answer::NotSent(self.deadline_skip()));
                        continue;
                    }
                    if stop.load(Ordering::SeqCst) {
                        let why = Skip::new(
                            "earlier failure",
                            format!(
                                "an earlier request failed ({})",
                                self.failure().unwrap_or_default()
                            ),
                        );
                        lock(&self.cache).insert(req.clone(), Answer::NotSent(why));
                        continue;
                    }
                    self.wait_turn(interval);
                    if self.expired() {
                        lock(&self.cache)
                            .insert(req.clone(), Answer::NotSent(self.deadline_skip()));
                        continue;
                    }
                    self.sent.fetch_add(1, Ordering::SeqCst);
                    let answer = match self.transport.send(req) {
                        Ok(r) => Answer::Reply {
                            status: r.status,
                            digest: r.digest,
                        },
                        Err(e) => {
                            let e = if self.expired() {
                                format!("{e} (stopped: {})", self.deadline_skip().why)
                            } else {
                                e
                            };
                            stop.store(true, Ordering::SeqCst);
                            lock(&self.failed).get_or_insert_with(|| e.clone());
                            Answer::Failed(e)
                        }
                    };
                    lock(&self.cache).insert(req.clone(), answer);
                });
            }
        });
    }

    /// Sleeps until this request's start slot (or the deadline, if sooner).
    fn wait_turn(&self, interval: Duration) {
        let wait = {
            let mut next = lock(&self.next_start);
            let now = Instant::now();
            let start = (*next).max(now);
            *next = start + interval;
            start - now
        };
        let wait = wait.min(self.ends.saturating_duration_since(Instant::now()));
        if !wait.is_zero() {
            std::thread::sleep(wait);
        }
    }
}
