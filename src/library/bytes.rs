//! One bounds-checked little-endian reader for every format the service reads from
//! untrusted files (PFS0, HFS0/XCI, NCZ, NCA headers, tickets, BKTR, CNMT, RomFS):
//! a field past the end of its bytes is `None`, never a panic, so a short or hostile
//! table is the file's error and never a crash of the reader.

/// `N` bytes at `at`, or `None` when they run past the end of `b`.
pub fn array<const N: usize>(b: &[u8], at: usize) -> Option<[u8; N]> {
    b.get(at..at.checked_add(N)?)?.try_into().ok()
}

pub fn u16le(b: &[u8], at: usize) -> Option<u16> {
    array(b, at).map(u16::from_le_bytes)
}

pub fn u32le(b: &[u8], at: usize) -> Option<u32> {
    array(b, at).map(u32::from_le_bytes)
}

pub fn u64le(b: &[u8], at: usize) -> Option<u64> {
    array(b, at).map(u64::from_le_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_read_past_the_end_is_none_and_never_panics() {
        let b = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(u16le(&b, 0), Some(0x0201));
        assert_eq!(u32le(&b, 5), Some(0x0908_0706));
        assert_eq!(u64le(&b, 1), Some(0x0908_0706_0504_0302));
        for at in [6, 9, 10, usize::MAX - 2, usize::MAX] {
            assert_eq!(u32le(&b, at), None, "{at}");
        }
        for len in 0..8 {
            assert_eq!(u64le(&b[..len], 0), None);
            assert_eq!(array::<4>(&b[..len.min(3)], 0), None);
        }
    }
}
