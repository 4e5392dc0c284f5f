# EfficientTAM (models/efficienttam, the ViTDet rows of models/sam2/config.c): key layouts,
# configs and variants; the trunk against a plain C transcription of the official module; a
# seeded Ti checkpoint segmented and tracked end to end on the CPU backend.
samrt_add_test(test_efficienttam_keys SOURCES test_efficienttam_keys.c LABELS cpu)
target_include_directories(test_efficienttam_keys PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
samrt_add_test(test_efficienttam SOURCES test_efficienttam.c LABELS cpu LIBS samrt_harness)
samrt_add_test(test_efficienttam_pool SOURCES test_efficienttam_pool.c LABELS cpu)
