//! What the windowed examples share before their window opens: their options' errors, the
//! `--size WxH` option, and whether there is a display to open one on.

/// The smallest picture side `--size` accepts.
pub const MIN_SIDE: u32 = 64;

/// Width and height from `--size`'s value, `WxH`, each at least [`MIN_SIDE`].
pub fn parse_size(value: Option<String>) -> Result<(u32, u32), String> {
    let s = value.ok_or("--size needs WxH")?;
    let (w, h) = s.split_once('x').ok_or("--size needs WxH")?;
    let width: u32 = w.parse().map_err(|_| "bad --size width")?;
    let height: u32 = h.parse().map_err(|_| "bad --size height")?;
    if width < MIN_SIDE || height < MIN_SIDE {
        return Err(format!("--size must be at least {MIN_SIDE}x{MIN_SIDE}"));
    }
    Ok((width, height))
}

/// The parsed options, or, on an error, the error and `usage` on standard error and exit code 2.
pub fn args_or_exit<T>(parsed: Result<T, String>, usage: &str) -> T {
    parsed.unwrap_or_else(|e| {
        eprintln!("{e}\nusage: {usage}");
        std::process::exit(2)
    })
}

/// Whether a run should skip the window: under CI (`CI=true`) or with no X11 display.
pub fn no_display() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true") || std::env::var_os("DISPLAY").is_none()
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse_and_bad_ones_are_refused() {
        assert_eq!(parse_size(Some("960x540".into())), Ok((960, 540)));
        assert!(parse_size(Some("63x540".into())).is_err());
        assert!(parse_size(Some("960".into())).is_err());
        assert!(parse_size(Some("ax540".into())).is_err());
        assert!(parse_size(None).is_err());
    }
}
