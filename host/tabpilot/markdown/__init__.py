"""Page HTML to markdown (convert) and markdown cut into structure-aware chunks (chunk)."""
