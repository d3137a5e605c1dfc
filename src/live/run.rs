//! Sends a plan's requests through a [`Transport`]: a request budget per run, a per-run cache of
//! identical requests (the bare request of an endpoint is sent once however many calls use it),
//! at most [`MAX_CONCURRENCY`] requests at a time, and a polite rate (a minimum interval between
//! the starts of two requests). After a request fails, nothing more is sent in that run.

use super::plan::Plan;
use super::{Answer, Answers, Request};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Requests in flight at most.
pub const MAX_CONCURRENCY: usize = 4;
/// Default request budget of a run (`--live-max-requests`).
pub const DEFAULT_MAX_REQUESTS: usize = 200;
/// Default rate: at most this many request starts per second.
pub const DEFAULT_RATE: u32 = 10;
/// Highest rate accepted.
pub const MAX_RATE: u32 = 20;

pub use crate::instance::http::Reply;

/// Sends one request to the configured NetBox. Implemented over HTTP by [`super::http`];
/// tests may use another.
pub trait Transport: Sync {
    /// The answer (any HTTP status), or why there is none (the message never holds the token).
    fn send(&self, req: &Request) -> Result<Reply, String>;
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
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_requests: DEFAULT_MAX_REQUESTS,
            concurrency: MAX_CONCURRENCY,
            rate: DEFAULT_RATE,
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
        }
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
        self.fetch_groups(&plan.requests(), &mut answers);
        let more: Vec<Vec<Request>> = plan
            .follow_ups(&answers)
            .into_iter()
            .map(|r| vec![r])
            .collect();
        self.fetch_groups(&more, &mut answers);
        answers.at = crate::index::instance::now_rfc3339();
        answers
    }

    fn fetch_groups(&self, groups: &[Vec<Request>], answers: &mut Answers) {
        let mut todo: Vec<Request> = Vec::new();
        let mut later: Vec<(Request, String)> = Vec::new();
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
                    let why = format!(
                        "the run's budget of {} requests is used up (--live-max-requests, editor setting live.maxRequests)",
                        self.limits.max_requests
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
                    if stop.load(Ordering::SeqCst) {
                        let why = format!(
                            "an earlier request failed ({})",
                            self.failure().unwrap_or_default()
                        );
                        lock(&self.cache).insert(req.clone(), Answer::NotSent(why));
                        continue;
                    }
                    self.wait_turn(interval);
                    self.sent.fetch_add(1, Ordering::SeqCst);
                    let answer = match self.transport.send(req) {
                        Ok(r) => Answer::Reply {
                            status: r.status,
                            body: r.body,
                        },
                        Err(e) => {
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

    /// Sleeps until this request's start slot.
    fn wait_turn(&self, interval: Duration) {
        let wait = {
            let mut next = lock(&self.next_start);
            let now = Instant::now();
            let start = (*next).max(now);
            *next = start + interval;
            start - now
        };
        if !wait.is_zero() {
            std::thread::sleep(wait);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
