//! [`DenseBoxes`]: the id → packed-position box store that the per-frame broad phases (brute
//! force, the uniform grid) share.

use crate::index::NULL_INDEX;
use crate::math::Aabb;

/// Boxes packed densely (swap-remove keeps them contiguous for tight loops) plus an id → position
/// map, since ids are small dense integers (the world's collider slots).
///
/// ```text
/// pos:   id -> position        ids:   [ 7, 2, 9 ]   (packed, unordered)
///        [_, _, 1, _, _, _, _, 0, _, 2]   boxes: [b7, b2, b9]
/// ```
#[derive(Default, Clone)]
pub(crate) struct DenseBoxes {
    /// id → position in `ids`/`boxes`, or [`NULL_INDEX`].
    pos: Vec<u32>,
    /// Packed ids, parallel to `boxes`.
    pub(crate) ids: Vec<u32>,
    /// Packed boxes, parallel to `ids`.
    pub(crate) boxes: Vec<Aabb>,
}

impl DenseBoxes {
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Inserts, or overwrites when the id is already present (a caller bug, tolerated in release).
    pub(crate) fn insert(&mut self, id: u32, aabb: Aabb) {
        let i = id as usize;
        if i >= self.pos.len() {
            self.pos.resize(i + 1, NULL_INDEX);
        }
        debug_assert!(self.pos[i] == NULL_INDEX, "broad phase: id {id} inserted twice");
        if self.pos[i] != NULL_INDEX {
            self.boxes[self.pos[i] as usize] = aabb;
            return;
        }
        self.pos[i] = self.ids.len() as u32;
        self.ids.push(id);
        self.boxes.push(aabb);
    }

    /// Removes; returns whether the id was present.
    pub(crate) fn remove(&mut self, id: u32) -> bool {
        let Some(&k) = self.pos.get(id as usize) else { return false };
        if k == NULL_INDEX {
            return false;
        }
        self.pos[id as usize] = NULL_INDEX;
        self.ids.swap_remove(k as usize);
        self.boxes.swap_remove(k as usize);
        if let Some(&moved) = self.ids.get(k as usize) {
            self.pos[moved as usize] = k;
        }
        true
    }

    /// Appends every stored id whose box overlaps `aabb`, by a scan of the packed boxes.
    pub(crate) fn query(&self, aabb: &Aabb, out: &mut Vec<u32>) {
        for (id, b) in self.ids.iter().zip(&self.boxes) {
            if b.overlaps(aabb) {
                out.push(*id);
            }
        }
    }

    /// Overwrites; returns whether the id was present.
    pub(crate) fn update(&mut self, id: u32, aabb: Aabb) -> bool {
        match self.pos.get(id as usize) {
            Some(&k) if k != NULL_INDEX => {
                self.boxes[k as usize] = aabb;
                true
            }
            _ => false,
        }
    }

    pub(crate) fn validate(&self) -> Result<(), String> {
        if self.ids.len() != self.boxes.len() {
            return Err(format!("dense: {} ids but {} boxes", self.ids.len(), self.boxes.len()));
        }
        for (k, &id) in self.ids.iter().enumerate() {
            if self.pos.get(id as usize) != Some(&(k as u32)) {
                return Err(format!("dense: id {id} at position {k} but the position map disagrees"));
            }
        }
        let mapped = self.pos.iter().filter(|&&k| k != NULL_INDEX).count();
        if mapped != self.ids.len() {
            return Err(format!("dense: {mapped} mapped ids but {} stored", self.ids.len()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_store_swap_remove_keeps_positions() {
        let mut d = DenseBoxes::default();
        for id in [5u32, 0, 9, 3] {
            d.insert(id, Aabb::new(glam::Vec2::splat(id as f32), glam::Vec2::splat(id as f32)));
        }
        assert!(d.remove(5));
        assert!(!d.remove(5));
        d.validate().unwrap();
        let k = d.ids.iter().position(|&i| i == 3).unwrap();
        assert_eq!(d.boxes[k].min.x, 3.0);
        assert!(d.update(9, Aabb::default()) && !d.update(5, Aabb::default()) && !d.update(100, Aabb::default()));
    }
}
