# SAM 2.1 video tracking: the memory selection rules (CPU, against a naive model of the
# official dictionaries).
samrt_add_test(test_sam2_track_bank SOURCES test_sam2_track_bank.c LABELS cpu)
target_include_directories(test_sam2_track_bank PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
