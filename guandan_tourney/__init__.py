"""guandan-tourney: tournament management and scoring for 掼蛋 (Guandan)."""
