//! Tile maps: a grid of solid, empty and 45° slope cells turned into closed chains by tracing
//! the outlines of the solid region and merging collinear edges.
//!
//! ```text
//!  text      cells        outline: one closed chain, counter-clockwise (solid on its left)
//!  ....      . . . .
//!  ./#.      . ◢ █ .            ┌─┐
//!  ####      █ █ █ █        ┌──╱  └──┐
//!                           └────────┘
//! ```
//!
//! Every solid cell contributes its counter-clockwise outline (a square, or for a slope tile
//! the triangle of its solid half); edges that two cells share cancel, the rest link into
//! loops, and runs of collinear edges become one segment. Loops wind counter-clockwise around
//! solid and clockwise around holes, so each chain's front faces out of the solid; where two
//! solid cells touch only at a corner the loops stay apart (the tracer turns towards the
//! solid). The tracing is exact: grid points are integers until the final scaling.

use std::collections::HashMap;

use glam::{IVec2, Vec2};

use super::{Chain, ChainOptions, ShapeError};

/// The largest number of cells a [`TileMap`] accepts (2²²).
pub const MAX_TILE_MAP_CELLS: usize = 1 << 22;

/// One cell of a [`TileMap`]. A slope fills the half of its cell on one side of a diagonal,
/// named by the corner its right angle sits in (the solid corner).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Tile {
    /// Nothing (`.` or space).
    #[default]
    Empty,
    /// The whole cell (`#`).
    Solid,
    /// ◢, solid in the bottom-right corner: a floor rising to the right (`/`).
    SlopeBottomRight,
    /// ◣, solid in the bottom-left corner: a floor falling to the right (`\`).
    SlopeBottomLeft,
    /// ◤, solid in the top-left corner: a ceiling (`F`, its bar at the top left).
    SlopeTopLeft,
    /// ◥, solid in the top-right corner: a ceiling (`7`, its bar at the top right).
    SlopeTopRight,
}

impl Tile {
    /// The tile a character of [`TileMap::parse`] stands for.
    #[must_use]
    pub fn from_char(c: char) -> Option<Tile> {
        Some(match c {
            '.' | ' ' => Tile::Empty,
            '#' => Tile::Solid,
            '/' => Tile::SlopeBottomRight,
            '\\' => Tile::SlopeBottomLeft,
            'F' => Tile::SlopeTopLeft,
            '7' => Tile::SlopeTopRight,
            _ => return None,
        })
    }

    /// The solid part's corners in unit-cell coordinates (x right, y up), counter-clockwise.
    fn outline(self) -> &'static [IVec2] {
        const BL: IVec2 = IVec2::new(0, 0);
        const BR: IVec2 = IVec2::new(1, 0);
        const TR: IVec2 = IVec2::new(1, 1);
        const TL: IVec2 = IVec2::new(0, 1);
        match self {
            Tile::Empty => &[],
            Tile::Solid => &[BL, BR, TR, TL],
            Tile::SlopeBottomRight => &[BL, BR, TR],
            Tile::SlopeBottomLeft => &[BL, BR, TL],
            Tile::SlopeTopLeft => &[BL, TR, TL],
            Tile::SlopeTopRight => &[BR, TR, TL],
        }
    }
}

/// Why a tile map could not be built or traced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileMapError {
    /// No rows, or rows without cells.
    Empty,
    /// Row `row` (0 is the top) has `found` cells where the first row has `expected`.
    RaggedRow {
        /// The row, counted from the top.
        row: usize,
        /// The first row's length.
        expected: usize,
        /// This row's length.
        found: usize,
    },
    /// More than [`MAX_TILE_MAP_CELLS`] cells.
    TooLarge,
    /// A character [`Tile::from_char`] does not know, at `row` (from the top) and `column`.
    UnknownTile {
        /// The row, counted from the top.
        row: usize,
        /// The column, counted from the left.
        column: usize,
        /// The character.
        found: char,
    },
    /// The cell size is not finite and positive, or the origin is not finite.
    InvalidLayout,
    /// An outline could not become a chain (beyond [`MAX_SHAPE_SIZE`](super::MAX_SHAPE_SIZE)
    /// or [`MAX_CHAIN_VERTICES`](super::MAX_CHAIN_VERTICES)).
    Shape(ShapeError),
}

impl std::fmt::Display for TileMapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TileMapError::Empty => f.write_str("tile map has no cells"),
            TileMapError::RaggedRow { row, expected, found } => {
                write!(f, "tile map row {row} has {found} cells, the first row {expected}")
            }
            TileMapError::TooLarge => f.write_str("tile map exceeds MAX_TILE_MAP_CELLS"),
            TileMapError::UnknownTile { row, column, found } => {
                write!(f, "unknown tile {found:?} at row {row}, column {column}")
            }
            TileMapError::InvalidLayout => f.write_str("cell size must be finite and positive, origin finite"),
            TileMapError::Shape(e) => write!(f, "tile map outline is not a valid chain: {e}"),
        }
    }
}

impl std::error::Error for TileMapError {}

/// A rectangular grid of [`Tile`]s; row 0 is the top row, as in text.
///
/// ```
/// use sapwood::{TileMap, Vec2};
/// let map = TileMap::parse("....\n./#.\n####")?;
/// let chains = map.chains(1.0, Vec2::ZERO, true)?;
/// assert_eq!(chains.len(), 1);
/// // The bottom, the right side, the floor right of the raised cell, its right side, its top
/// // (the slope's right side cancels against its left side), the slope's diagonal, the floor
/// // left of it, the left side.
/// assert_eq!(chains[0].vertices().len(), 8);
/// # Ok::<(), sapwood::TileMapError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileMap {
    width: usize,
    height: usize,
    cells: Vec<Tile>,
}

impl TileMap {
    /// A map from rows of tiles, the top row first.
    ///
    /// # Errors
    /// [`TileMapError::Empty`], [`TileMapError::RaggedRow`], [`TileMapError::TooLarge`].
    pub fn new<R: AsRef<[Tile]>>(rows: &[R]) -> Result<TileMap, TileMapError> {
        let width = rows.first().map_or(0, |r| r.as_ref().len());
        if width == 0 {
            return Err(TileMapError::Empty);
        }
        if rows.len().checked_mul(width).is_none_or(|n| n > MAX_TILE_MAP_CELLS) {
            return Err(TileMapError::TooLarge);
        }
        let mut cells = Vec::with_capacity(width * rows.len());
        for (row, r) in rows.iter().enumerate() {
            let r = r.as_ref();
            if r.len() != width {
                return Err(TileMapError::RaggedRow { row, expected: width, found: r.len() });
            }
            cells.extend_from_slice(r);
        }
        Ok(TileMap { width, height: rows.len(), cells })
    }

    /// A map from text, one line per row, top row first: `#` solid, `.` or space empty, `/` ◢,
    /// `\` ◣, `F` ◤, `7` ◥ (see [`Tile`]). Leading and trailing blank lines are dropped and
    /// every line is trimmed of leading whitespace, so an indented literal works.
    ///
    /// # Errors
    /// [`TileMapError::UnknownTile`], and those of [`TileMap::new`].
    pub fn parse(text: &str) -> Result<TileMap, TileMapError> {
        let lines: Vec<&str> = text.lines().map(str::trim_start).collect();
        let first = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len());
        let last = lines.iter().rposition(|l| !l.trim().is_empty()).map_or(first, |i| i + 1);
        let mut rows = Vec::with_capacity(last - first);
        let mut cells = 0usize;
        for (row, line) in lines[first..last].iter().enumerate() {
            let line = line.trim_end();
            cells = cells.saturating_add(line.chars().count());
            if cells > MAX_TILE_MAP_CELLS {
                return Err(TileMapError::TooLarge);
            }
            let tiles = line
                .chars()
                .enumerate()
                .map(|(column, c)| Tile::from_char(c).ok_or(TileMapError::UnknownTile { row, column, found: c }))
                .collect::<Result<Vec<Tile>, _>>()?;
            rows.push(tiles);
        }
        TileMap::new(&rows)
    }

    /// The rows, top row first, as [`TileMap::new`] takes them.
    #[cfg(feature = "serde")]
    pub(crate) fn rows(&self) -> std::slice::Chunks<'_, Tile> {
        self.cells.chunks(self.width)
    }

    /// Columns.
    #[must_use]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    #[must_use]
    pub fn height(&self) -> usize {
        self.height
    }

    /// The tile at `column`, `row` (0 is the top row), `None` outside the map.
    #[must_use]
    pub fn get(&self, column: usize, row: usize) -> Option<Tile> {
        (column < self.width && row < self.height).then(|| self.cells[row * self.width + column])
    }

    /// The world position of the centre of cell `column`, `row` for a map laid out by
    /// [`TileMap::chains`] with `cell_size` and `origin` (the map's bottom-left corner).
    #[must_use]
    pub fn cell_center(&self, cell_size: f32, origin: Vec2, column: usize, row: usize) -> Vec2 {
        origin + cell_size * Vec2::new(column as f32 + 0.5, (self.height - 1 - row) as f32 + 0.5)
    }

    /// The outlines of the solid region as closed chains, cells `cell_size` wide with the map's
    /// bottom-left corner at `origin`, one- or two-sided. Deterministic: the same map gives the
    /// same chains, vertices in the same order.
    ///
    /// # Errors
    /// [`TileMapError::InvalidLayout`] for a bad cell size or origin, [`TileMapError::Shape`]
    /// when an outline is not a valid chain (too far out or too long).
    pub fn chains(&self, cell_size: f32, origin: Vec2, one_sided: bool) -> Result<Vec<Chain>, TileMapError> {
        if !cell_size.is_finite() || cell_size <= 0.0 || !origin.is_finite() {
            return Err(TileMapError::InvalidLayout);
        }
        let options = ChainOptions { closed: true, one_sided };
        self.outlines()
            .into_iter()
            .map(|l| {
                let vs = l.iter().map(|p| origin + cell_size * p.as_vec2()).collect();
                Chain::new(vs, options).map_err(TileMapError::Shape)
            })
            .collect()
    }

    /// The merged outline loops in grid points (x right, y up from the bottom-left corner).
    fn outlines(&self) -> Vec<Vec<IVec2>> {
        // Directed boundary edges: each cell's outline, minus edges met in both directions.
        let mut edges: HashMap<(IVec2, IVec2), u32> = HashMap::new();
        for row in 0..self.height {
            for column in 0..self.width {
                let at = IVec2::new(column as i32, (self.height - 1 - row) as i32);
                let o = self.cells[row * self.width + column].outline();
                for k in 0..o.len() {
                    let (a, b) = (at + o[k], at + o[(k + 1) % o.len()]);
                    if let Some(n) = edges.get_mut(&(b, a)) {
                        *n -= 1;
                        if *n == 0 {
                            edges.remove(&(b, a));
                        }
                    } else {
                        *edges.entry((a, b)).or_insert(0) += 1;
                    }
                }
            }
        }
        // Sorted, so that loops start and run the same way on every run.
        let key = |p: IVec2| (p.y, p.x);
        let mut list: Vec<(IVec2, IVec2)> = edges.into_keys().collect();
        list.sort_unstable_by_key(|&(a, b)| (key(a), key(b)));
        let mut outgoing: HashMap<IVec2, Vec<usize>> = HashMap::new();
        for (i, &(a, _)) in list.iter().enumerate() {
            outgoing.entry(a).or_default().push(i);
        }
        let mut used = vec![false; list.len()];
        let mut loops = Vec::new();
        for start in 0..list.len() {
            if used[start] {
                continue;
            }
            let mut points = Vec::new();
            let mut e = start;
            loop {
                used[e] = true;
                let (a, b) = list[e];
                points.push(a);
                let dir = b - a;
                // At a corner where two solids touch, turn towards the solid (left) the most:
                // the loop hugs the cells it came along and leaves the other solid's own.
                // That rule gives every edge one successor, so the loops partition the edges.
                let next = outgoing[&b]
                    .iter()
                    .copied()
                    .max_by(|&x, &y| left_turn(dir, list[x].1 - b).total_cmp(&left_turn(dir, list[y].1 - b)));
                match next {
                    Some(k) if !used[k] => e = k,
                    _ => break,
                }
            }
            loops.push(merge_collinear(points));
        }
        loops
    }
}

/// The signed turn angle from `d` to `e` (left positive), in `(-π, π]`.
fn left_turn(d: IVec2, e: IVec2) -> f32 {
    let (d, e) = (d.as_vec2(), e.as_vec2());
    crate::trig::atan2(d.perp_dot(e), d.dot(e))
}

/// Drops the vertices of a closed loop where the outline goes straight on.
fn merge_collinear(points: Vec<IVec2>) -> Vec<IVec2> {
    let n = points.len();
    (0..n)
        .filter(|&i| {
            let (p, q, r) = (points[(i + n - 1) % n], points[i], points[(i + 1) % n]);
            let (d, e) = (q - p, r - q);
            d.perp_dot(e) != 0 || d.dot(e) < 0
        })
        .map(|i| points[i])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_maps_are_refused() {
        assert_eq!(TileMap::parse(""), Err(TileMapError::Empty));
        assert_eq!(TileMap::parse("\n  \n"), Err(TileMapError::Empty));
        assert_eq!(TileMap::new::<Vec<Tile>>(&[vec![]]), Err(TileMapError::Empty));
        assert_eq!(TileMap::parse("##\n#"), Err(TileMapError::RaggedRow { row: 1, expected: 2, found: 1 }));
        assert_eq!(TileMap::parse("#x"), Err(TileMapError::UnknownTile { row: 0, column: 1, found: 'x' }));
        let wide = vec![Tile::Empty; 1 << 12];
        let rows = vec![wide; (1 << 10) + 1];
        assert_eq!(TileMap::new(&rows), Err(TileMapError::TooLarge));
        let map = TileMap::parse("#").unwrap();
        assert_eq!(map.chains(0.0, Vec2::ZERO, true), Err(TileMapError::InvalidLayout));
        assert_eq!(map.chains(f32::NAN, Vec2::ZERO, true), Err(TileMapError::InvalidLayout));
        assert_eq!(map.chains(1.0, Vec2::INFINITY, true), Err(TileMapError::InvalidLayout));
        assert_eq!(map.chains(1e7, Vec2::ZERO, true), Err(TileMapError::Shape(ShapeError::TooLarge)));
    }

    #[test]
    fn a_single_cell_and_an_empty_map() {
        let one = TileMap::parse("#").unwrap().chains(2.0, Vec2::new(1.0, 1.0), false).unwrap();
        assert_eq!(one.len(), 1);
        let expect = [(1.0, 1.0), (3.0, 1.0), (3.0, 3.0), (1.0, 3.0)].map(|(x, y)| Vec2::new(x, y));
        assert_eq!(one[0].vertices(), &expect);
        assert!(TileMap::parse("..\n..").unwrap().chains(1.0, Vec2::ZERO, true).unwrap().is_empty());
    }

    #[test]
    fn diagonal_neighbours_stay_two_loops() {
        let chains = TileMap::parse("#.\n.#").unwrap().chains(1.0, Vec2::ZERO, true).unwrap();
        assert_eq!(chains.len(), 2);
        assert!(chains.iter().all(|c| c.vertices().len() == 4));
    }
}
