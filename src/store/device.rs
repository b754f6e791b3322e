//! The `device` table: the one handheld the service pushes to.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Error;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Device {
    pub name: String,
    pub host: String,
    pub port: u16,
    pub offer_address: Option<String>,
    pub last_contact: Option<i64>,
    pub last_result: Option<String>,
    pub client: Option<String>,
    pub last_push: Option<i64>,
}

pub fn get(conn: &Connection) -> Result<Option<Device>, Error> {
    Ok(conn
        .query_row(
            "SELECT name, host, port, offer_address, last_contact, last_result, client, last_push
             FROM device WHERE id = 1",
            [],
            |r| {
                Ok(Device {
                    name: r.get(0)?,
                    host: r.get(1)?,
                    port: r.get(2)?,
                    offer_address: r.get(3)?,
                    last_contact: r.get(4)?,
                    last_result: r.get(5)?,
                    client: r.get(6)?,
                    last_push: r.get(7)?,
                })
            },
        )
        .optional()?)
}

/// Configure the device (what the console last did is kept).
pub fn set(
    conn: &Connection,
    name: &str,
    host: &str,
    port: u16,
    offer: Option<&str>,
) -> Result<(), Error> {
    conn.execute(
        "INSERT INTO device (id, name, host, port, offer_address) VALUES (1, ?1, ?2, ?3, ?4)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, host = excluded.host,
             port = excluded.port, offer_address = excluded.offer_address",
        params![name, host, port, offer],
    )?;
    Ok(())
}

pub fn clear(conn: &Connection) -> Result<(), Error> {
    conn.execute("DELETE FROM device", [])?;
    Ok(())
}

/// Record how a push ended.
pub fn record_push(
    conn: &Connection,
    result: &str,
    now: i64,
    contact: Option<i64>,
    client: Option<&str>,
) -> Result<(), Error> {
    conn.execute(
        "UPDATE device SET last_result = ?1, last_push = ?2,
             last_contact = coalesce(?3, last_contact), client = coalesce(?4, client)
         WHERE id = 1",
        params![result, now, contact, client],
    )?;
    Ok(())
}
