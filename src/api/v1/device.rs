//! The handheld and what waits to be pushed to it.

use super::types::{self};
use crate::error::Error;
use crate::http::{Ctx, Reply};

/// The handheld and what waits to be pushed to it.
pub fn device(c: &Ctx) -> Result<Reply, Error> {
    let d = crate::store::device::get(c.db)?;
    let pending = crate::store::push_list::list(c.db)?;
    Reply::json(
        200,
        &types::DeviceState {
            configured: d.is_some(),
            name: d.as_ref().map(|d| d.name.clone()),
            transport: "lan",
            host: d.as_ref().map(|d| d.host.clone()),
            port: d.as_ref().map(|d| d.port),
            last_contact: d
                .as_ref()
                .and_then(|d| d.last_contact)
                .map(crate::time::rfc3339),
            last_result: d.as_ref().and_then(|d| d.last_result.clone()),
            client: d.as_ref().and_then(|d| d.client.clone()),
            pending: pending.len() as u64,
            pending_bytes: pending.iter().map(|(_, size)| size).sum(),
            last_push: d
                .as_ref()
                .and_then(|d| d.last_push)
                .map(crate::time::rfc3339),
        },
    )
}
