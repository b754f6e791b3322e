//! Reading what a game file holds with the user's console keys: the NCA headers
//! (`nca`), the CNMT of each Meta NCA (`cnmt`), and the names and icons of each
//! Control NCA's RomFS (`romfs`, `nacp`). The keyless readers of `containers` find
//! the NCAs; this opens them.
//!
//! Like `containers`, every offset and size is checked before it is used and no
//! allocation is sized by an unchecked field: any input gives `Ok` or a
//! [`FormatError`] with a reason safe to show, never a panic. Only headers, the CNMT
//! and the Control NCA's few files are read, never a whole NCA.

pub mod prodkeys;

pub use prodkeys::ProdKeys;

use crate::library::containers::FormatError;

/// What a CNMT says a content is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaType {
    /// 0x80: a base game.
    Application,
    /// 0x81: an update.
    Patch,
    /// 0x82: a DLC.
    AddOn,
    /// 0x83: a delta (an update's differences, not installable on its own).
    Delta,
    /// Any other (system titles): kept, shown as unknown.
    Other(u8),
}

/// One NCA a content is made of, as its CNMT records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentRecord {
    /// The NCA's ID: the file `<id>.nca` (or `.ncz`) in the container.
    pub nca_id: [u8; 16],
    /// SHA-256 of the whole NCA as stored (encrypted).
    pub sha256: [u8; 32],
    pub size: u64,
    /// 0 Meta, 1 Program, 2 Data, 3 Control, 4 HtmlDocument, 5 LegalInformation,
    /// 6 DeltaFragment.
    pub kind: u8,
}

/// A content of the file: one CNMT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    pub title_id: u64,
    pub meta_type: MetaType,
    pub version: u32,
    /// The base game an update or DLC belongs to (the CNMT's extended header).
    pub application_id: Option<u64>,
    pub records: Vec<ContentRecord>,
}

/// The names a Control NCA gives its title, one per language that has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Control {
    /// The title the Control NCA belongs to (its CNMT's title ID).
    pub title_id: u64,
    /// (language index 0–15 as in the NACP, name, publisher), non-empty names only.
    pub names: Vec<(u8, String, String)>,
    /// Such as "1.2.0"; empty when absent.
    pub display_version: String,
    /// The first icon in the languages' order (JPEG bytes, at most [`MAX_ICON`]).
    pub icon: Option<Vec<u8>>,
}

/// The largest icon kept (real ones are 256×256 JPEGs of about 100 KiB).
pub const MAX_ICON: u64 = 512 * 1024;

/// Why part of a file could not be read with the keys; the text is safe to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// No `header_key` in the keys file.
    NoHeaderKey,
    /// The header does not decrypt to an NCA with this header key.
    WrongKeys { nca: String },
    /// The NCA needs a key of this revision the keys file lacks (and cannot derive).
    MissingKey { nca: String, revision: u8 },
    /// The title key is in a personalized ticket (tied to one console's account).
    PersonalizedTicket { nca: String },
    /// No ticket for the NCA's rights ID.
    NoTicket { nca: String },
    /// The NCA or a structure inside it is malformed.
    Malformed { nca: String, why: String },
}

/// Everything read from one file with the keys.
#[derive(Debug, Clone, Default)]
pub struct Inside {
    /// Every CNMT found, in the container's order.
    pub contents: Vec<Content>,
    /// The Control NCAs' names and icons (only when asked for).
    pub controls: Vec<Control>,
    /// The highest key revision among the file's NCA headers (what it needs).
    pub key_revision: Option<u8>,
    pub problems: Vec<Problem>,
}

/// What to read besides the CNMTs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Want {
    /// Names, publisher, display version from the Control NCAs.
    pub control: bool,
    /// And their icons.
    pub icon: bool,
}

/// Read every NCA of the file (`format`: `nsp`, `nsz`, `xci` or `xcz`) of `len`
/// bytes with `keys`. A container that does not parse is an `Err`; an NCA that does
/// not open is a [`Problem`] and the others are still read.
pub fn read<R: std::io::Read + std::io::Seek>(
    _file: &mut R,
    _format: &str,
    _len: u64,
    _keys: &ProdKeys,
    _want: Want,
) -> Result<Inside, FormatError> {
    Err(FormatError("not yet".into()))
}
