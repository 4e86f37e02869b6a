# placeholder
LP_STAGE2_DIR := tmp/stage2
