"""srcad."""
