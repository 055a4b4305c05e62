//! The windowed examples' last step before minifb: their pictures are RGBA bytes (tiny-skia's
//! premultiplied layout, opaque everywhere), minifb wants one `0RGB` word per pixel.

/// `rgba` (opaque, so premultiplied colour is plain colour) as `0RGB` words in `out`, which
/// keeps its allocation from frame to frame.
pub fn rgba_to_0rgb(rgba: &[u8], out: &mut Vec<u32>) {
    out.resize(rgba.len() / 4, 0);
    // Big-endian R, G, B, A shifted right by a byte is 0RGB: a byte swap and a shift, which
    // the compiler turns into a vector shuffle.
    for (word, p) in out.iter_mut().zip(rgba.chunks_exact(4)) {
        *word = u32::from_be_bytes([p[0], p[1], p[2], p[3]]) >> 8;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rgba_becomes_0rgb() {
        let mut out = vec![7; 5];
        super::rgba_to_0rgb(&[0x12, 0x34, 0x56, 0xff, 1, 2, 3, 255], &mut out);
        assert_eq!(out, [0x0012_3456, 0x0001_0203]);
    }
}
