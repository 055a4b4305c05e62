//! The SAP's invariants, checked against its own state and a brute-force oracle.

use super::endpoints::{ep_id, ep_is_max, key_of};
use super::pairs::Tracking;
use super::{FLAG_MOVED, FLAG_NEW, LIVE, PENDING_INSERT, PENDING_REMOVE, Sap};
use crate::broad::Pair;

impl<T: Tracking> Sap<T> {
    /// Checks that both axes hold exactly the endpoints of the boxes in the axes, strictly
    /// ascending (coordinate, then min before max, then id), that the position index and the
    /// per-id state agree with them, and that a kept pair set equals a brute-force
    /// recomputation over the boxes the axes reflect. Valid with mutations pending too: those
    /// are only recorded until the next flush.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let live = self.state.iter().filter(|&&s| s == LIVE || s == PENDING_REMOVE).count();
        let present = self.state.iter().filter(|&&s| s == LIVE || s == PENDING_INSERT).count();
        if present != self.count {
            return Err(format!("count {} but {present} ids present", self.count));
        }
        for ax in &self.axes {
            let a = ax.axis;
            if ax.ends.len() != 2 * live {
                return Err(format!("axis {a}: {} endpoints for {live} boxes in the axes", ax.ends.len()));
            }
            for (i, &e) in ax.ends.iter().enumerate() {
                if i > 0 && ax.ends[i - 1] >= e {
                    return Err(format!("axis {a}: endpoints {} and {i} out of order", i - 1));
                }
                let id = ep_id(e) as usize;
                if self.state.get(id).is_none_or(|&s| s != LIVE && s != PENDING_REMOVE) {
                    return Err(format!("axis {a}: endpoint {i} of id {id}, which is not in the axes"));
                }
                let b = &self.boxes[id].prev;
                let v = if ep_is_max(e) { b.max[a] } else { b.min[a] };
                if (e >> 32) as u32 != key_of(v) {
                    return Err(format!("axis {a}: endpoint {i} (id {id}) does not hold its box's coordinate"));
                }
                let o = 1 - a;
                if !ax.span.get(i).is_some_and(|sp| sp[0] <= b.min[o] && b.max[o] <= sp[1]) {
                    return Err(format!("axis {a}: endpoint {i} (id {id}): its span misses the box"));
                }
                let bs = &self.boxes[id];
                if self.flags[id] & FLAG_MOVED == 0 && bytemuck::bytes_of(&bs.cur) != bytemuck::bytes_of(&bs.prev) {
                    return Err(format!("id {id} changed its box without being marked as moved"));
                }
            }
        }
        self.tracking.validate()?;
        if self.flags.iter().any(|&f| f & FLAG_NEW != 0) {
            return Err("an id is still flagged new outside a flush".into());
        }
        let Some(table) = self.tracking.pair_set() else {
            return Ok(());
        };
        let expect = self.recompute_pairs();
        let mut got: Vec<Pair> = table.iter().map(|(p, _)| p).collect();
        got.sort_unstable();
        crate::broad::same_pairs(&got, &expect, "pair table against brute force")
    }
}
