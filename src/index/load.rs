//! Loads an index file (gzip-compressed JSON). (Being written.)
