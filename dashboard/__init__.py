"""The dashboard's helpers (session, sidebar settings, cached computations, drawing), apart from pages/, which holds pages only."""
