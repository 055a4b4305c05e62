//! hecs integration.
