//! The level: one picture in text, read into sapwood's `TileMap` (terrain) and the game's own
//! markers (one-way platforms, the moving platform's track, pickups, spikes, start, checkpoint,
//! goal).
//!
//! Terrain characters are the tile map's (`#` solid, `/` `\` 45° slopes, `.` empty). The
//! markers stand on empty cells:
//!
//! | char | meaning |
//! |------|---------|
//! | `=`  | a one-way platform along the top edge of the run of cells |
//! | `M`  | the moving platform's body at the start (one cell thick) |
//! | `-`  | the rest of its horizontal track: it shuttles over the run of `M` and `-` |
//! | `*`  | a pickup at the cell's centre |
//! | `^`  | spikes (a run of them is one hazard) |
//! | `S`, `C` | the start and the checkpoint: the player stands on the cell's bottom edge |
//! | `G`  | the goal: reaching its column ends the level |
//! | `t`  | a solid cell inserted as a box collider of its own, as a Tiled or LDtk import gives |

use sapwood::{Chain, Tile, TileMap, TileMapError, Vec2};

/// World units per cell.
pub const CELL: f32 = 0.5;

/// The course, left to right: flat ground, one-cell steps up (climbed without jumping), a
/// valley between 45° slopes, a two-cell step (a jump), a wall too high to jump from the
/// ground with a one-way platform before it, a plateau, a drop, a spiked pit crossed on the
/// moving platform, a slope down, bumps, and a bump and the run to the goal built from separate
/// tile colliders (`t`), welded by the world into one smooth surface.
const MAP: &str = r"
##..............................................................................................................................................................................................########
##..............................................................................................................................................................................................########
##..............................................................................................................................................................................................########
##..............................................................................................................................................................................................########
##..........................................................................................*...................................................................................................########
##..............................................................................................................................................................................................########
##....................................................................................##############............................................................................................########
##..................................................................................*.##############............................................................................................########
##....................................................................................##############............................................................................................########
##..........................................*...............................==========##############............................................................................................########
##....................................................................................##############.......................*....................................................................########
##......................................./######\................*....................##############......................................*.....................................................########
##....................................../########\....................................##############......C.....................................................................................########
##......................####\........../##########\...*...######################################################MMMMMM------------------####\...................................................########
##........*.....*.....#######\......../############\......######################################################........................#####\....................................*.............########
##..S...............##########\..*.../##########################################################################........................######\.....*.......####..........*.....................########
###############################\..../###########################################################################........................#######\........tttttttttttt.....................G......########
################################################################################################################........................############################tttttttttttttttttttttttttttt########
################################################################################################################^^^^^^^^^^^^^^^^^^^^^^^^################################################################
########################################################################################################################################################################################################
";

/// A horizontal moving platform: a box that shuttles between two centres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Track {
    pub half_extents: Vec2,
    /// The centre at the left end of the track (where it starts) and at the right end.
    pub left: Vec2,
    pub right: Vec2,
}

/// Everything the level text holds, in world units (the map's bottom-left corner at the origin).
pub struct Level {
    pub map: TileMap,
    /// The terrain's outlines (closed, two-sided).
    pub terrain: Vec<Chain>,
    /// One-way platforms as (left end, right end) of their top edge.
    pub one_way: Vec<(Vec2, Vec2)>,
    pub tracks: Vec<Track>,
    pub pickups: Vec<Vec2>,
    /// Spike runs as (bottom-left corner, top-right corner).
    pub spikes: Vec<(Vec2, Vec2)>,
    /// Points the player stands on: the start, then the checkpoints left to right.
    pub start: Vec2,
    pub checkpoints: Vec<Vec2>,
    /// Centres of the cells given as tiles of their own (`t`), each a static box collider.
    pub tiles: Vec<Vec2>,
    pub goal_x: f32,
    /// The level's extent: `[0, size.x] x [0, size.y]`.
    pub size: Vec2,
}

/// How far a moving platform stays from the terrain at the ends of its track, so that its
/// corners never coincide with the terrain's.
const TRACK_CLEARANCE: f32 = 0.1;

/// Why the level text could not be read.
#[derive(Debug)]
pub enum LevelError {
    Map(TileMapError),
    /// A marker is missing or malformed (the text says which).
    Markers(&'static str),
}

impl std::fmt::Display for LevelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LevelError::Map(e) => write!(f, "level map: {e}"),
            LevelError::Markers(why) => write!(f, "level markers: {why}"),
        }
    }
}

impl std::error::Error for LevelError {}

impl From<TileMapError> for LevelError {
    fn from(e: TileMapError) -> Self {
        LevelError::Map(e)
    }
}

impl Level {
    /// The built-in course.
    pub fn course() -> Result<Level, LevelError> {
        Level::parse(MAP)
    }

    /// A level from text (see the module docs).
    pub fn parse(text: &str) -> Result<Level, LevelError> {
        let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        let height = lines.len();
        let mut rows = Vec::with_capacity(height);
        let mut level = Level {
            map: TileMap::new(&[[Tile::Solid]])?,
            terrain: Vec::new(),
            one_way: Vec::new(),
            tracks: Vec::new(),
            pickups: Vec::new(),
            spikes: Vec::new(),
            start: Vec2::ZERO,
            checkpoints: Vec::new(),
            tiles: Vec::new(),
            goal_x: f32::INFINITY,
            size: Vec2::ZERO,
        };
        let mut start = None;
        for (row, line) in lines.iter().enumerate() {
            // Cell (column, row) spans x in [column, column + 1] and y in [bottom, bottom + 1]
            // cells, row 0 being the top.
            let bottom = (height - 1 - row) as f32;
            let cell = |column: usize| CELL * Vec2::new(column as f32, bottom);
            let mut tiles = Vec::with_capacity(line.len());
            let chars: Vec<char> = line.chars().collect();
            let mut column = 0;
            while column < chars.len() {
                let c = chars[column];
                // The run of equal (or, for a track, track) characters starting here.
                let run_end = |same: &dyn Fn(char) -> bool| {
                    chars[column..].iter().position(|&d| !same(d)).map_or(chars.len(), |n| column + n)
                };
                match c {
                    '=' => {
                        let end = run_end(&|d| d == '=');
                        level.one_way.push((cell(column) + Vec2::new(0.0, CELL), cell(end) + Vec2::new(0.0, CELL)));
                        tiles.extend(std::iter::repeat_n(Tile::Empty, end - column));
                        column = end;
                        continue;
                    }
                    '^' => {
                        let end = run_end(&|d| d == '^');
                        level.spikes.push((cell(column), cell(end) + Vec2::new(0.0, CELL)));
                        tiles.extend(std::iter::repeat_n(Tile::Empty, end - column));
                        column = end;
                        continue;
                    }
                    'M' => {
                        let body = run_end(&|d| d == 'M');
                        let end = run_end(&|d| d == 'M' || d == '-');
                        let half_extents = Vec2::new(0.5 * CELL * (body - column) as f32, 0.5 * CELL);
                        let centre = |left_cell: usize| cell(left_cell) + half_extents;
                        let left = centre(column) + Vec2::new(TRACK_CLEARANCE, 0.0);
                        let right = centre(end - (body - column)) - Vec2::new(TRACK_CLEARANCE, 0.0);
                        level.tracks.push(Track { half_extents, left, right });
                        tiles.extend(std::iter::repeat_n(Tile::Empty, end - column));
                        column = end;
                        continue;
                    }
                    '-' => return Err(LevelError::Markers("a track ('-') must start with the platform ('M')")),
                    '*' => level.pickups.push(cell(column) + Vec2::splat(0.5 * CELL)),
                    'S' => start = Some(cell(column) + Vec2::new(0.5 * CELL, 0.0)),
                    'C' => level.checkpoints.push(cell(column) + Vec2::new(0.5 * CELL, 0.0)),
                    'G' => level.goal_x = level.goal_x.min(cell(column).x),
                    't' => level.tiles.push(cell(column) + Vec2::splat(0.5 * CELL)),
                    _ => {}
                }
                let tile = match c {
                    '*' | 'S' | 'C' | 'G' | 't' => Tile::Empty,
                    _ => Tile::from_char(c).ok_or(LevelError::Markers("unknown character"))?,
                };
                tiles.push(tile);
                column += 1;
            }
            rows.push(tiles);
        }
        level.map = TileMap::new(&rows)?;
        level.start = start.ok_or(LevelError::Markers("no start ('S')"))?;
        if !level.goal_x.is_finite() {
            return Err(LevelError::Markers("no goal ('G')"));
        }
        level.checkpoints.sort_by(|a, b| a.x.total_cmp(&b.x));
        level.terrain = level.map.chains(CELL, Vec2::ZERO, false)?;
        level.size = CELL * Vec2::new(level.map.width() as f32, level.map.height() as f32);
        Ok(level)
    }

    /// Whether `p` is inside the solid terrain, read from the tile grid itself (not from the
    /// chains traced from it): the independent check that the player never ends inside a wall.
    pub fn solid_at(&self, p: Vec2) -> bool {
        let g = p / CELL;
        if g.x < 0.0 || g.y < 0.0 || g.x >= self.map.width() as f32 || g.y >= self.map.height() as f32 {
            return false;
        }
        let (column, from_bottom) = (g.x as usize, g.y as usize);
        let (u, v) = (g.x.fract(), g.y.fract());
        match self.map.get(column, self.map.height() - 1 - from_bottom) {
            Some(Tile::Solid) => true,
            Some(Tile::SlopeBottomRight) => v < u,
            Some(Tile::SlopeBottomLeft) => v < 1.0 - u,
            Some(Tile::SlopeTopLeft) => v > u,
            Some(Tile::SlopeTopRight) => v > 1.0 - u,
            Some(Tile::Empty) | None => false,
        }
    }

    /// The checkpoint (or start) the player respawns at when at `x`: the last one left of it.
    pub fn respawn_for(&self, x: f32) -> Vec2 {
        self.checkpoints.iter().rev().find(|c| c.x <= x).copied().unwrap_or(self.start)
    }
}
