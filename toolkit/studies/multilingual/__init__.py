"""The multilingual EEC study (Câmara et al. 2022; Goldfarb-Tarrant et al. 2023)."""
