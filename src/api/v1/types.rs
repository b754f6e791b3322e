//! The JSON shapes of the public API (contract section 2). Only this file knows
//! them; field names and types never change within v1. No value here may hold an
//! absolute server path: games are named by their library-relative key.

use serde::Serialize;

use crate::jobs::Snapshot;
use crate::store::job_runs::JobRun;
use crate::time::rfc3339;

#[derive(Serialize)]
pub struct Health {
    pub status: &'static str,
}

/// 2.3
#[derive(Serialize)]
pub struct System {
    pub version: &'static str,
    pub api: &'static str,
    pub uptime_s: u64,
    pub licence: &'static str,
    pub library_ready: bool,
}

/// 2.4, plus `unit`, `started_at` and `last` (product.md).
#[derive(Serialize)]
pub struct JobStatus {
    pub running: bool,
    pub label: String,
    pub done: u64,
    pub total: u64,
    pub detail: String,
    pub unit: String,
    pub started_at: Option<String>,
    pub last: Option<LastRun>,
}

#[derive(Serialize)]
pub struct LastRun {
    pub label: String,
    pub result: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub done: u64,
    pub total: u64,
    pub errors: u64,
    pub message: String,
}

impl From<&JobRun> for LastRun {
    fn from(r: &JobRun) -> Self {
        LastRun {
            label: r.label.clone(),
            result: r.result.clone(),
            started_at: rfc3339(r.started_at),
            finished_at: r.finished_at.map(rfc3339),
            done: r.done,
            total: r.total,
            errors: r.errors,
            message: r.message.clone(),
        }
    }
}

impl From<&Snapshot> for JobStatus {
    fn from(s: &Snapshot) -> Self {
        JobStatus {
            running: s.running,
            label: s.label.to_string(),
            done: s.done,
            total: s.total,
            detail: s.detail.clone(),
            unit: s.unit.to_string(),
            started_at: s.started_at.map(rfc3339),
            last: s.last.as_ref().map(LastRun::from),
        }
    }
}
