"""Paper and spreadsheets: score sheets, pairing lists, standings and penalty reports as PDF;
Excel registration import and full Excel export."""
