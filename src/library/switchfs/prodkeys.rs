//! The user's console keys (`prod.keys`, as Lockpick_RCM dumps it from their own
//! console): parsing, checking and deriving the keys the readers need. Not to be
//! confused with the API keys of `crate::keys`: these never leave the data folder,
//! and no text this service writes ever holds one.

/// Key revisions (`_00` … `_1f`) a keys file may name.
pub const REVISIONS: usize = 0x20;

/// The keys the NCA readers use, all derived already. `Debug` never prints a value.
#[derive(Clone, Default)]
pub struct ProdKeys {
    /// `header_key`: the NCA headers' XTS key (data key, then tweak key).
    pub header_key: Option<[u8; 32]>,
    /// `key_area_key_{application,ocean,system}_XX`, by revision then key-area index.
    pub key_area: [[Option<[u8; 16]>; 3]; REVISIONS],
    /// `titlekek_XX`, by revision: opens a common ticket's title key.
    pub titlekek: [Option<[u8; 16]>; REVISIONS],
}

impl std::fmt::Debug for ProdKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProdKeys { .. }")
    }
}

impl ProdKeys {
    /// The key that opens the key area of an NCA with this key-area index (0
    /// application, 1 ocean, 2 system) and key revision.
    pub fn key_area_key(&self, index: u8, revision: u8) -> Option<[u8; 16]> {
        self.key_area
            .get(revision as usize)
            .and_then(|keys| keys.get(index as usize).copied().flatten())
    }

    pub fn titlekek(&self, revision: u8) -> Option<[u8; 16]> {
        self.titlekek.get(revision as usize).copied().flatten()
    }
}
