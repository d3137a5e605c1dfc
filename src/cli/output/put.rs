//! Output written into room made beforehand: the JSON of a finding is ~40 pieces (constant
//! lines, strings, numbers), and appending each to a `Vec<u8>` checked and updated its length
//! and capacity in memory every time (~12 instructions a piece, ~640 a finding of a check of
//! 10,000 calls). A [`Room`] makes the room for a whole finding once (its bound: the constant
//! parts, six bytes for each byte of a string, ten digits a number) and a [`Put`] writes the
//! pieces at a position held in a register, into bytes allocated and initialised once for the
//! run (safe slices, no per-piece growth). The JSON string escapes (serde_json's) live here
//! too, below both the JSON and SARIF writers.

/// A buffer of output: bytes `..len` are written, the rest is room (initialised, reused from
/// one batch to the next).
#[derive(Default)]
pub struct Room {
    buf: Vec<u8>,
    len: usize,
}

impl Room {
    /// The bytes written.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// How many bytes are written.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing is written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets what was written (the room stays).
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// A writer after the bytes written, with room for at least `n` more bytes (made here when
    /// short) and [`SLACK`] beyond them, where [`Put::escaped`] may store past its string's end.
    /// Writing more than `n` through it panics (a bound computed wrong).
    #[inline]
    pub fn put(&mut self, n: usize) -> Put<'_> {
        if self.buf.len() - self.len < n + SLACK {
            self.grow(n + SLACK);
        }
        let Room { buf, len } = self;
        Put {
            at: *len,
            buf: buf.as_mut_slice(),
            len,
        }
    }

    #[cold]
    fn grow(&mut self, n: usize) {
        // Room for this and for the next ones: the buffer doubles.
        let want = (self.len + n).max(2 * self.buf.len()).max(1 << 12);
        self.buf.resize(want, 0);
    }
    /// A raw writer after the bytes written, with room for at least `n` more bytes and
    /// [`SLACK`] beyond them (made here when short): [`Put`] without a bounds check a piece,
    /// its position a pointer held in a register (the JSON of a finding is ~40 pieces).
    ///
    /// # Safety
    /// The caller writes at most `n` bytes through it (its bound computed right: the tests
    /// write the worst case of every piece).
    #[inline]
    pub unsafe fn raw(&mut self, n: usize) -> Raw<'_> {
        if self.buf.len() - self.len < n + SLACK {
            self.grow(n + SLACK);
        }
        let Room { buf, len } = self;
        let base = buf.as_mut_ptr();
        // SAFETY: `len <= buf.len()`.
        let at = unsafe { base.add(*len) };
        Raw {
            at,
            end: at.wrapping_add(n),
            base,
            commit: Commit::Len(len),
        }
    }
}

/// Output gathered in chunks of about [`CHUNK_BYTES`] written through [`Raw`] into their
/// spare capacity (never zeroed, never copied to grow): one file's JSON elements, made on the
/// thread that checks it. With a [`Drain`], each chunk is handed on as soon as it is full
/// (and its buffer comes back empty for the next one): one file's JSON is then never held
/// whole.
#[derive(Default)]
pub struct Chunks<'d> {
    done: Vec<Vec<u8>>,
    cur: Vec<u8>,
    drain: Option<&'d mut Drain<'d>>,
}

/// What takes a full chunk of [`Chunks`] (written out, or sent to the thread that writes) and
/// gives back a buffer for the next one (empty; of any capacity: one too small is grown).
pub type Drain<'d> = dyn FnMut(Vec<u8>) -> Vec<u8> + 'd;

/// The capacity of a [`Chunks`] chunk (more for a larger piece).
pub const CHUNK_BYTES: usize = 1 << 16;

impl<'d> Chunks<'d> {
    /// Chunks handed to `drain` as each fills (the last one stays: [`Chunks::into_chunks`]).
    pub fn draining(drain: &'d mut Drain<'d>) -> Chunks<'d> {
        Chunks {
            done: Vec::new(),
            cur: Vec::new(),
            drain: Some(drain),
        }
    }

    /// A raw writer after the bytes written, with room for `n` more bytes and [`SLACK`]
    /// beyond them (a new chunk when the current one is short).
    ///
    /// # Safety
    /// As [`Room::raw`].
    #[inline]
    pub unsafe fn raw(&mut self, n: usize) -> Raw<'_> {
        if self.cur.capacity() - self.cur.len() < n + SLACK {
            self.next_chunk(n + SLACK);
        }
        let base = self.cur.as_mut_ptr();
        // SAFETY: `len <= capacity`.
        let at = unsafe { base.add(self.cur.len()) };
        Raw {
            at,
            end: at.wrapping_add(n),
            base,
            commit: Commit::Vec(&mut self.cur),
        }
    }

    #[cold]
    fn next_chunk(&mut self, n: usize) {
        let want = n.max(CHUNK_BYTES);
        if self.cur.is_empty() {
            self.cur.reserve(want);
            return;
        }
        let full = std::mem::take(&mut self.cur);
        self.cur = match &mut self.drain {
            Some(drain) => {
                let mut next = drain(full);
                next.clear();
                next.reserve(want);
                next
            }
            None => {
                self.done.push(full);
                Vec::with_capacity(want)
            }
        };
    }

    /// The chunks written and not drained, in order (none empty).
    pub fn into_chunks(mut self) -> Vec<Vec<u8>> {
        if !self.cur.is_empty() {
            self.done.push(self.cur);
        }
        self.done
    }
}

/// A number's decimal digits held in a word (the first digit in its lowest byte) with their
/// count, made once and written wherever the number recurs (a range's line at both ends, an
/// edit on the finding's own range): [`Raw::digits`]. `len` 0: a million or more, written by
/// [`Raw::u32`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digits {
    word: u64,
    len: u32,
    n: u32,
}

impl Digits {
    /// The digits of `n`.
    #[inline(always)]
    pub fn of(n: u32) -> Digits {
        let pair = |k: u32| -> u64 {
            let i = 2 * k as usize;
            u64::from(u16::from_le_bytes([DIGITS[i], DIGITS[i + 1]]))
        };
        let one = |k: u32| u64::from(b'0' + k as u8);
        let (word, len) = if n < 10 {
            (one(n), 1)
        } else if n < 100 {
            (pair(n), 2)
        } else if n < 10_000 {
            let (high, low) = (n / 100, n % 100);
            if high < 10 {
                (one(high) | pair(low) << 8, 3)
            } else {
                (pair(high) | pair(low) << 16, 4)
            }
        } else if n < 1_000_000 {
            let (high, mid, low) = (n / 10_000, n / 100 % 100, n % 100);
            if high < 10 {
                (one(high) | pair(mid) << 8 | pair(low) << 24, 5)
            } else {
                (pair(high) | pair(mid) << 16 | pair(low) << 32, 6)
            }
        } else {
            (0, 0)
        };
        Digits { word, len, n }
    }
}

/// Where a [`Raw`] writer's length goes when it is dropped.
enum Commit<'a> {
    /// A [`Room`]'s count of bytes written (its buffer initialised).
    Len(&'a mut usize),
    /// A vector's length (its spare capacity written).
    Vec(&'a mut Vec<u8>),
}

/// Writes into a [`Room`]'s room or a [`Chunks`] chunk through a pointer; what it wrote counts
/// as written when it is dropped. Every method writes (never reads) within the bound the room
/// was made for (the caller's promise), each byte up to the new end written, and may store up
/// to [`SLACK`] bytes past it.
pub struct Raw<'a> {
    at: *mut u8,
    /// The end of the bound (checked in debug builds).
    end: *mut u8,
    base: *mut u8,
    commit: Commit<'a>,
}

impl Drop for Raw<'_> {
    fn drop(&mut self) {
        debug_assert!(self.at <= self.end, "a bound computed wrong");
        // SAFETY: `at` is in the buffer that starts at `base`.
        let n = unsafe { self.at.offset_from(self.base) } as usize;
        match &mut self.commit {
            Commit::Len(len) => **len = n,
            // SAFETY: bytes up to `n` are written, within the capacity reserved.
            Commit::Vec(v) => unsafe { v.set_len(n) },
        }
    }
}

/// A buffer [`Raw`] writes into: [`Room`] or [`Chunks`].
pub trait RawRoom {
    /// [`Room::raw`].
    ///
    /// # Safety
    /// As [`Room::raw`].
    unsafe fn raw(&mut self, n: usize) -> Raw<'_>;
}

impl RawRoom for Room {
    #[inline(always)]
    unsafe fn raw(&mut self, n: usize) -> Raw<'_> {
        // SAFETY: the caller's promise.
        unsafe { Room::raw(self, n) }
    }
}

impl RawRoom for Chunks<'_> {
    #[inline(always)]
    unsafe fn raw(&mut self, n: usize) -> Raw<'_> {
        // SAFETY: the caller's promise.
        unsafe { Chunks::raw(self, n) }
    }
}

impl Raw<'_> {
    /// Appends `s` (a constant: one copy of known length).
    ///
    /// # Safety
    /// Within the room's bound.
    #[inline(always)]
    pub unsafe fn bytes<const N: usize>(&mut self, s: &[u8; N]) {
        // SAFETY: the caller's promise.
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr(), self.at, N);
            self.at = self.at.add(N);
        }
    }

    /// Appends `bytes[..len]`, copying all of `bytes` (`N` counts in the bound).
    ///
    /// # Safety
    /// Within the room's bound.
    #[inline(always)]
    pub unsafe fn padded<const N: usize>(&mut self, bytes: &[u8; N], len: usize) {
        // SAFETY: the caller's promise.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.at, N);
            self.at = self.at.add(len.min(N));
        }
    }

    /// Appends `bytes[..len]` (`bytes` a multiple of thirty-two long), copying all of
    /// `bytes` thirty-two at a time (`bytes.len()` counts in the bound).
    ///
    /// # Safety
    /// Within the room's bound.
    #[inline(always)]
    pub unsafe fn thirty_twos(&mut self, bytes: &[u8], len: usize) {
        debug_assert!(bytes.len().is_multiple_of(32));
        let mut i = 0;
        while i < bytes.len() {
            // SAFETY: bytes `i..i + 32` of `bytes` are read; the caller's promise for `at`.
            unsafe {
                let chunk: [u8; 32] = std::ptr::read_unaligned(bytes.as_ptr().add(i).cast());
                std::ptr::write_unaligned(self.at.add(i).cast(), chunk);
            }
            i += 32;
        }
        // SAFETY: as above.
        self.at = unsafe { self.at.add(len.min(bytes.len())) };
    }

    /// `n` in decimal (at most ten bytes): up to six digits from the table of pairs (the
    /// columns and lines of files up to a million lines), itoa's digits beyond.
    ///
    /// # Safety
    /// Within the room's bound.
    #[inline(always)]
    pub unsafe fn u32(&mut self, n: u32) {
        // SAFETY: the caller's promise; the table is read at `2 * k` for `k < 100`.
        unsafe {
            let pair = |at: *mut u8, k: u32| {
                std::ptr::copy_nonoverlapping(DIGITS.as_ptr().add(2 * k as usize), at, 2)
            };
            if n < 10 {
                *self.at = b'0' + n as u8;
                self.at = self.at.add(1);
            } else if n < 100 {
                pair(self.at, n);
                self.at = self.at.add(2);
            } else if n < 10_000 {
                let (high, low) = (n / 100, n % 100);
                if high < 10 {
                    *self.at = b'0' + high as u8;
                    pair(self.at.add(1), low);
                    self.at = self.at.add(3);
                } else {
                    pair(self.at, high);
                    pair(self.at.add(2), low);
                    self.at = self.at.add(4);
                }
            } else if n < 1_000_000 {
                let (high, mid, low) = (n / 10_000, n / 100 % 100, n % 100);
                if high < 10 {
                    *self.at = b'0' + high as u8;
                    pair(self.at.add(1), mid);
                    pair(self.at.add(3), low);
                    self.at = self.at.add(5);
                } else {
                    pair(self.at, high);
                    pair(self.at.add(2), mid);
                    pair(self.at.add(4), low);
                    self.at = self.at.add(6);
                }
            } else {
                let mut b = itoa::Buffer::new();
                let s = b.format(n).as_bytes();
                std::ptr::copy_nonoverlapping(s.as_ptr(), self.at, s.len());
                self.at = self.at.add(s.len());
            }
        }
    }

    /// `d`'s digits (at most ten bytes; one store of a word below a million).
    ///
    /// # Safety
    /// Within the room's bound.
    #[inline(always)]
    pub unsafe fn digits(&mut self, d: Digits) {
        // SAFETY: the caller's promise (ten bytes a number in the bound).
        unsafe {
            if d.len > 0 {
                std::ptr::write_unaligned(self.at.cast(), d.word.to_le());
                self.at = self.at.add(d.len as usize);
            } else {
                self.u32(d.n);
            }
        }
    }

    /// The inside of a JSON string literal of `s`, as serde_json writes it (at most `6 × len`
    /// bytes, and it may store up to [`SLACK`] bytes past them): all of `s` copied first, in
    /// whole steps of thirty-two or sixteen bytes (a short string as two overlapping words),
    /// with the test for a byte to escape on the same loads; escapes written from the first
    /// such byte on (rare: a quote or a control character in a message).
    ///
    /// # Safety
    /// Within the room's bound; with `WIDE`, as [`Put::escaped_by`].
    #[inline(always)]
    pub unsafe fn escaped<const WIDE: bool>(&mut self, s: &str) {
        let mut rest = s.as_bytes();
        loop {
            // SAFETY (both): the caller's promise (six bytes a byte of the string); what is
            // left of it has six bytes a byte left.
            let k = unsafe { copy_all::<WIDE>(rest, self.at) };
            self.at = unsafe { self.at.add(k) };
            if k == rest.len() {
                return;
            }
            // SAFETY: as above.
            unsafe { self.escape(rest[k]) };
            rest = &rest[k + 1..];
        }
    }

    /// The escape of `c` (at most six bytes).
    ///
    /// # Safety
    /// Within the room's bound.
    #[cold]
    #[inline(never)]
    unsafe fn escape(&mut self, c: u8) {
        let mut esc = [0; 6];
        let e = escape_of(c, &mut esc);
        // SAFETY: the caller's promise.
        unsafe {
            std::ptr::copy_nonoverlapping(esc.as_ptr(), self.at, 6);
            self.at = self.at.add(e);
        }
    }
}

/// Copies all of `b` to `out` (which holds `b.len() + SLACK` bytes) and gives the index of
/// the first byte [`escaped`] flags (`b.len()` when none).
///
/// # Safety
/// `out` is valid for `b.len() + SLACK` bytes; with `WIDE`, the processor has AVX2 and the
/// caller is compiled for it.
#[inline(always)]
unsafe fn copy_all<const WIDE: bool>(b: &[u8], out: *mut u8) -> usize {
    let n = b.len();
    let src = b.as_ptr();
    // SAFETY (every block): reads stay in `b` (offsets below `n`); writes stay below
    // `n + SLACK` bytes of `out`.
    unsafe {
        if n >= 16 {
            #[cfg(target_arch = "x86_64")]
            if WIDE && n >= 32 {
                use std::arch::x86_64::{
                    __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8,
                    _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_storeu_si256,
                };
                let flags = |x: __m256i| -> u32 {
                    let quote = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'"' as i8));
                    let slash = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'\\' as i8));
                    let control = _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8(0x1f)), x);
                    _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(quote, slash), control))
                        as u32
                };
                let mut i = 0;
                while i + 32 <= n {
                    let x = _mm256_loadu_si256(src.add(i).cast::<__m256i>());
                    _mm256_storeu_si256(out.add(i).cast::<__m256i>(), x);
                    let m = flags(x);
                    if m != 0 {
                        return i + m.trailing_zeros() as usize;
                    }
                    i += 32;
                }
                if i < n {
                    // The last thirty-two bytes, those before `i` seen clean.
                    let last = n - 32;
                    let x = _mm256_loadu_si256(src.add(last).cast::<__m256i>());
                    _mm256_storeu_si256(out.add(last).cast::<__m256i>(), x);
                    let m = flags(x) >> (i - last);
                    if m != 0 {
                        return i + m.trailing_zeros() as usize;
                    }
                }
                return n;
            }
            let mut i = 0;
            while i + 16 <= n {
                let chunk: [u8; 16] = std::ptr::read_unaligned(src.add(i).cast());
                std::ptr::write_unaligned(out.add(i).cast(), chunk);
                let m = mask16(&chunk);
                if m != 0 {
                    return i + m.trailing_zeros() as usize;
                }
                i += 16;
            }
            if i < n {
                let last = n - 16;
                let chunk: [u8; 16] = std::ptr::read_unaligned(src.add(last).cast());
                std::ptr::write_unaligned(out.add(last).cast(), chunk);
                let m = mask16(&chunk) >> (i - last);
                if m != 0 {
                    return i + m.trailing_zeros() as usize;
                }
            }
            return n;
        }
        // Fewer than sixteen bytes: two overlapping words (as `memcpy` copies a short string),
        // looked at together as sixteen bytes (bits 0-7 the first word's, 8-15 the second's).
        const SPACES: u64 = 0x2020_2020_2020_2020;
        let (lo, hi, at_hi) = if n >= 8 {
            let lo: u64 = std::ptr::read_unaligned(src.cast());
            let hi: u64 = std::ptr::read_unaligned(src.add(n - 8).cast());
            std::ptr::write_unaligned(out.cast(), lo);
            std::ptr::write_unaligned(out.add(n - 8).cast(), hi);
            (lo, hi, n - 8)
        } else if n >= 4 {
            let lo: u32 = std::ptr::read_unaligned(src.cast());
            let hi: u32 = std::ptr::read_unaligned(src.add(n - 4).cast());
            std::ptr::write_unaligned(out.cast(), lo);
            std::ptr::write_unaligned(out.add(n - 4).cast(), hi);
            let pad = |w: u32| u64::from(w) | (SPACES << 32);
            (pad(lo), pad(hi), n - 4)
        } else if n > 0 {
            let (a, m, z) = (*src, *src.add(n / 2), *src.add(n - 1));
            *out = a;
            *out.add(n / 2) = m;
            *out.add(n - 1) = z;
            // Byte `k` of the word is byte `[0, n / 2, n - 1][k]` of `b` (in order).
            let w = u64::from_le_bytes([a, m, z, b' ', b' ', b' ', b' ', b' ']);
            let flagged = mask_words(w, SPACES) & 0b111;
            if flagged == 0 {
                return n;
            }
            return [0, n / 2, n - 1][flagged.trailing_zeros() as usize];
        } else {
            return 0;
        };
        let m = mask_words(lo, hi);
        if m & 0xff != 0 {
            return (m & 0xff).trailing_zeros() as usize;
        }
        if m != 0 {
            return at_hi + (m >> 8).trailing_zeros() as usize;
        }
        n
    }
}

/// [`mask16`] of the sixteen bytes of `lo` then `hi` (little-endian).
#[inline(always)]
fn mask_words(lo: u64, hi: u64) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
            _mm_set_epi64x,
        };
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe {
            let x = _mm_set_epi64x(hi as i64, lo as i64);
            let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
            let slash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
            let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), control)) as u32
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut chunk = [0u8; 16];
        chunk[..8].copy_from_slice(&lo.to_le_bytes());
        chunk[8..].copy_from_slice(&hi.to_le_bytes());
        mask16(&chunk)
    }
}

/// Bytes of room past a [`Room::put`]'s bound: [`Put::escaped`] copies sixteen bytes at a time
/// and may store up to fifteen bytes past what it writes (overwritten by what follows).
pub const SLACK: usize = 16;

/// Writes into a [`Room`]'s room; what it wrote counts as written when it is dropped.
pub struct Put<'a> {
    buf: &'a mut [u8],
    at: usize,
    len: &'a mut usize,
}

impl Drop for Put<'_> {
    fn drop(&mut self) {
        *self.len = self.at;
    }
}

/// The two-digit numbers `00` to `99`, for [`Put::u32`].
const DIGITS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

impl Put<'_> {
    /// Appends `s`.
    #[inline(always)]
    pub fn bytes(&mut self, s: &[u8]) {
        let end = self.at + s.len();
        self.buf[self.at..end].copy_from_slice(s);
        self.at = end;
    }

    /// Appends `bytes[..len]`, copying the whole of `bytes` (a constant of known size, padded):
    /// one copy of fixed length instead of a call to `memcpy`; the padding is overwritten by
    /// what follows. The bound counts `N` bytes.
    #[inline(always)]
    pub fn padded<const N: usize>(&mut self, bytes: &[u8; N], len: usize) {
        self.buf[self.at..self.at + N].copy_from_slice(bytes);
        self.at += len.min(N);
    }

    /// Appends `bytes[..len]` (`bytes` a multiple of sixteen long), copying all of `bytes`
    /// sixteen at a time; the rest is overwritten by what follows. The bound counts
    /// `bytes.len()`.
    #[inline(always)]
    pub fn sixteens(&mut self, bytes: &[u8], len: usize) {
        let mut at = self.at;
        for chunk in bytes.chunks_exact(16) {
            self.buf[at..at + 16].copy_from_slice(chunk);
            at += 16;
        }
        self.at += len.min(bytes.len());
    }

    #[inline(always)]
    fn byte(&mut self, c: u8) {
        self.buf[self.at] = c;
        self.at += 1;
    }

    #[inline(always)]
    fn pair(&mut self, n: u32) {
        let i = 2 * n as usize;
        self.bytes(&DIGITS[i..i + 2]);
    }

    /// `n` in decimal (at most ten bytes): up to four digits from a table of pairs (columns
    /// and the lines of most files), itoa's digits beyond.
    #[inline(always)]
    pub fn u32(&mut self, n: u32) {
        if n < 10 {
            self.byte(b'0' + n as u8);
        } else if n < 100 {
            self.pair(n);
        } else if n < 10_000 {
            let (high, low) = (n / 100, n % 100);
            if high < 10 {
                self.byte(b'0' + high as u8);
            } else {
                self.pair(high);
            }
            self.pair(low);
        } else {
            self.bytes(itoa::Buffer::new().format(n).as_bytes());
        }
    }

    /// [`Put::u32`] of a `u64` (at most twenty bytes).
    #[inline]
    pub fn u64(&mut self, n: u64) {
        match u32::try_from(n) {
            Ok(n) => self.u32(n),
            Err(_) => self.bytes(itoa::Buffer::new().format(n).as_bytes()),
        }
    }

    /// `s` as a JSON string literal, as serde_json writes it (at most `6 × len + 2` bytes).
    #[inline]
    pub fn str(&mut self, s: &str) {
        self.byte(b'"');
        self.escaped(s);
        self.byte(b'"');
    }

    /// The inside of [`Put::str`]'s literal (at most `6 × len` bytes, and it may store up to
    /// [`SLACK`] bytes past them): the bytes copied sixteen at a time before they are looked
    /// at, so that a step without escape (nearly all of them) is a load, a store and a test
    /// ([`copy_clean`]); an escape written where one is found. A check of 10,000 calls writes
    /// ~45,000 strings (messages of ~180 bytes, titles, codes, texts of edits).
    #[inline(always)]
    pub fn escaped(&mut self, s: &str) {
        // SAFETY: sixteen bytes a step (SSE2, part of the x86_64 baseline).
        unsafe { self.escaped_by::<false>(s) }
    }

    /// [`Put::escaped`], thirty-two bytes a step when `WIDE` (AVX2).
    ///
    /// # Safety
    /// With `WIDE`, the processor has AVX2 ([`wide`]) and the caller is compiled for it
    /// (`#[target_feature(enable = "avx2")]`, where this is inlined).
    #[inline(always)]
    pub unsafe fn escaped_by<const WIDE: bool>(&mut self, s: &str) {
        let b = s.as_bytes();
        // The room every store below stays in: the caller's bound gives six bytes a byte of
        // `s`, and [`Room::put`] adds the slack.
        let mut i = 0;
        loop {
            // The room left: six bytes a byte not yet written, and the slack.
            let room = 6 * (b.len() - i) + SLACK;
            // SAFETY: the slice holds that room; `WIDE` only where AVX2 is (see above).
            let (next, at) =
                unsafe { copy_clean::<WIDE>(b, i, &mut self.buf[self.at..self.at + room]) };
            self.at += at;
            if next == b.len() {
                return;
            }
            let mut esc = [0; 6];
            let k = escape_of(b[next], &mut esc);
            self.bytes(&esc[..k]);
            i = next + 1;
        }
    }
}

/// True when this processor has AVX2: then output may be written by code compiled for it, with
/// [`Put::escaped_by`]`::<true>`.
pub fn wide() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Copies the bytes of `b` from `from` on to the start of `out` up to the first byte
/// [`escaped`] flags, giving that byte's index (`b.len()` when none) and the count of bytes
/// copied. It may store up to [`SLACK`] bytes past them. Sixteen bytes a step (SSE2 on
/// x86_64), thirty-two first when `WIDE`.
///
/// # Safety
/// `out` must be at least `b.len() - from + SLACK` bytes long (it always is:
/// [`Put::escaped`] gives it six bytes a byte and the slack); with `WIDE`, the processor has
/// AVX2 and the caller is compiled for it.
#[inline(always)]
unsafe fn copy_clean<const WIDE: bool>(b: &[u8], from: usize, out: &mut [u8]) -> (usize, usize) {
    debug_assert!(out.len() >= b.len().saturating_sub(from) + SLACK);
    let n = b.len();
    let (src, dst) = (b.as_ptr(), out.as_mut_ptr());
    let mut i = from;
    #[cfg(target_arch = "x86_64")]
    if WIDE {
        use std::arch::x86_64::{
            __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8,
            _mm256_or_si256, _mm256_set1_epi8, _mm256_storeu_si256,
        };
        while i + 32 <= n {
            // SAFETY: bytes `i..i + 32` of `b` are read; `out` holds `n - from + SLACK` bytes,
            // so the 32 bytes at `i - from` are in it; AVX2 is the caller's promise.
            let m = unsafe {
                let x = _mm256_loadu_si256(src.add(i).cast::<__m256i>());
                _mm256_storeu_si256(dst.add(i - from).cast::<__m256i>(), x);
                let quote = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'"' as i8));
                let slash = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'\\' as i8));
                let control = _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8(0x1f)), x);
                _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(quote, slash), control)) as u32
            };
            if m != 0 {
                let k = m.trailing_zeros() as usize;
                return (i + k, i + k - from);
            }
            i += 32;
        }
    }
    while i + 16 <= n {
        // SAFETY: bytes `i..i + 16` of `b` are read; `out` holds `n - from + SLACK` bytes, so
        // the 16 bytes at `i - from` are in it.
        let chunk: [u8; 16] = unsafe { std::ptr::read_unaligned(src.add(i).cast()) };
        unsafe { std::ptr::write_unaligned(dst.add(i - from).cast(), chunk) };
        let m = mask16(&chunk);
        if m != 0 {
            let k = m.trailing_zeros() as usize;
            return (i + k, i + k - from);
        }
        i += 16;
    }
    if i < n {
        if n - from >= 16 {
            // The last 16 bytes of `b`, over bytes copied as they are in this call (the first
            // of them at or after `from`): stored where they go, the bits of those before `i`
            // shifted out.
            let last = n - 16;
            // SAFETY: bytes `last..n` of `b` are read; they go to `last - from..n - from` of
            // `out`.
            let chunk: [u8; 16] = unsafe { std::ptr::read_unaligned(src.add(last).cast()) };
            unsafe { std::ptr::write_unaligned(dst.add(last - from).cast(), chunk) };
            let m = mask16(&chunk) >> (i - last);
            if m != 0 {
                let k = m.trailing_zeros() as usize;
                return (i + k, i + k - from);
            }
        } else {
            let chunk = tail(b, i);
            // SAFETY: as above (`i - from + 16 <= n - from + SLACK`).
            unsafe { std::ptr::write_unaligned(dst.add(i - from).cast(), chunk) };
            let m = mask16(&chunk);
            if m != 0 {
                let k = m.trailing_zeros() as usize;
                return (i + k, i + k - from);
            }
        }
    }
    (n, n - from)
}

/// Bytes `from..` of `b` (fewer than 16) followed by spaces, read as two overlapping words
/// (or single bytes for fewer than four), as `memcpy` reads a short copy.
#[inline(always)]
fn tail(b: &[u8], from: usize) -> [u8; 16] {
    let n = b.len();
    let rem = n - from;
    let mut chunk = [b' '; 16];
    if rem >= 8 {
        chunk[..8].copy_from_slice(&b[from..from + 8]);
        chunk[rem - 8..rem].copy_from_slice(&b[n - 8..]);
    } else if rem >= 4 {
        chunk[..4].copy_from_slice(&b[from..from + 4]);
        chunk[rem - 4..rem].copy_from_slice(&b[n - 4..]);
    } else if rem > 0 {
        chunk[0] = b[from];
        chunk[rem / 2] = b[from + rem / 2];
        chunk[rem - 1] = b[n - 1];
    }
    chunk
}

/// The mask of the bytes of `chunk` that [`escaped`] flags (bit `k` for byte `k`).
#[inline(always)]
fn mask16(chunk: &[u8; 16]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
            _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of the x86_64 baseline; the load reads the 16 bytes of `chunk`
        // (unaligned loads are allowed).
        unsafe {
            let x = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
            let slash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
            // x <= 0x1f unsigned: min(x, 0x1f) == x.
            let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), control)) as u32
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        chunk
            .iter()
            .enumerate()
            .fold(0, |m, (k, &c)| m | (u32::from(escaped(c)) << k))
    }
}

/// True for a byte a JSON string literal escapes: `"`, `\\` and the control characters.
#[inline]
fn escaped(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// The index of the first byte of `b` from `from` on that [`escaped`] flags, `b.len()` when
/// none: sixteen bytes a step (SSE2 on x86_64, two eight-byte words elsewhere), the last
/// partial step as one more step over the last sixteen bytes. The findings' messages and
/// paths are most of a `--format json` output, and a check of 10,000 calls scanned ~5 strings
/// a finding.
#[inline]
pub(super) fn first_escaped(b: &[u8], from: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        first_escaped_sse2(b, from)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        first_escaped_words(b, from)
    }
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn first_escaped_sse2(b: &[u8], from: usize) -> usize {
    // The mask of the flagged bytes among 16.
    let mask = mask16;
    let n = b.len();
    if from >= n {
        return n;
    }
    if n < 16 {
        // A short string (a code, a path, a fix's text) in one step, padded with spaces.
        let mut chunk = [b' '; 16];
        chunk[..n - from].copy_from_slice(&b[from..]);
        let m = mask(&chunk);
        return if m == 0 {
            n
        } else {
            from + m.trailing_zeros() as usize
        };
    }
    // The mask of the flagged bytes among the 16 at `i` (`i + 16 <= n`).
    let flags = |i: usize| -> u32 {
        let chunk: &[u8; 16] = b[i..i + 16].try_into().unwrap_or(&[b' '; 16]);
        mask(chunk)
    };
    let mut i = from;
    // Thirty-two bytes a step (one test of both masks), then sixteen.
    while i + 32 <= n {
        let m = flags(i) | (flags(i + 16) << 16);
        if m != 0 {
            return i + m.trailing_zeros() as usize;
        }
        i += 32;
    }
    while i + 16 <= n {
        let m = flags(i);
        if m != 0 {
            return i + m.trailing_zeros() as usize;
        }
        i += 16;
    }
    if i < n {
        // The last 16 bytes, those before `i` masked off (already seen clean).
        let last = n - 16;
        let m = flags(last) >> (i - last);
        if m != 0 {
            return i + m.trailing_zeros() as usize;
        }
    }
    n
}

/// [`first_escaped`] by two eight-byte words a step (any target; the tests check it too).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn first_escaped_words(b: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // True when a byte of `x` is below 0x20, `"` or `\` (exact as a yes/no).
    let flagged = |x: u64| {
        let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
        (x.wrapping_sub(ONES * 0x20) & !x & HIGH)
            | zero(x ^ (ONES * u64::from(b'"')))
            | zero(x ^ (ONES * u64::from(b'\\')))
            != 0
    };
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
    let mut i = from;
    while i + 16 <= b.len() && !flagged(word(i)) && !flagged(word(i + 8)) {
        i += 16;
    }
    while i + 8 <= b.len() && !flagged(word(i)) {
        i += 8;
    }
    first_escaped_bytes(b, i)
}

/// [`first_escaped`] a byte at a time.
pub(super) fn first_escaped_bytes(b: &[u8], from: usize) -> usize {
    let from = from.min(b.len());
    b[from..]
        .iter()
        .position(|&c| escaped(c))
        .map_or(b.len(), |k| from + k)
}

/// The escape of a byte [`escaped`] flags, as serde_json writes it: `\b \t \n \f \r`
/// short, the other control characters `\u00xx`; into `buf`, giving its length.
#[inline]
pub(super) fn escape_of(c: u8, buf: &mut [u8; 6]) -> usize {
    let short = match c {
        b'"' => b'"',
        b'\\' => b'\\',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x08 => b'b',
        0x0c => b'f',
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            *buf = [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(c >> 4)],
                HEX[usize::from(c & 0xf)],
            ];
            return 6;
        }
    };
    buf[0] = b'\\';
    buf[1] = short;
    2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers are their decimal digits at every length; the room grows when short and what
    /// was written stays.
    #[test]
    fn numbers_and_room() {
        let mut room = Room::default();
        let mut want = String::new();
        for n in (0..12_000).chain([99_999, 100_000, 123_456, u32::MAX]) {
            room.put(10).u32(n);
            want.push_str(&n.to_string());
        }
        for n in [0, 9, u64::from(u32::MAX) + 1, u64::MAX] {
            room.put(20).u64(n);
            want.push_str(&n.to_string());
        }
        // The raw writer, into a room and into chunks, every length of number.
        let mut chunks = Chunks::default();
        for n in (0..12_000).chain([99_999, 100_000, 123_456, 999_999, 1_000_000, u32::MAX]) {
            // SAFETY: ten bytes at most.
            unsafe {
                room.raw(10).u32(n);
                chunks.raw(10).digits(Digits::of(n));
            }
            want.push_str(&n.to_string());
        }
        let chunked = chunks.into_chunks().concat();
        assert!(want.ends_with(std::str::from_utf8(&chunked).unwrap()));
        assert_eq!(room.bytes(), want.as_bytes());
        assert_eq!(room.len(), want.len());
        room.clear();
        assert!(room.is_empty());
        let long = "\u{1}".repeat(100_000);
        room.put(6 * long.len() + 2).str(&long);
        assert_eq!(
            room.bytes(),
            serde_json::to_string(&long).unwrap().as_bytes()
        );
    }
}
