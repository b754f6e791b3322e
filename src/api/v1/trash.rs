//! What the trash holds.

use super::types::Trash;
use crate::error::Error;
use crate::http::{Ctx, Reply};

/// What the trash holds and can still be restored.
pub fn trash(c: &Ctx) -> Result<Reply, Error> {
    Reply::json(200, &Trash::new(&crate::store::trash::list(c.db)?))
}
