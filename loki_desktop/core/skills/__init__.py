"""Skills: expert methods in markdown, routed per message by a lexical router."""
