//! Builds a [`FilterIndex`](super::FilterIndex) from an OpenAPI document. (Being written.)
