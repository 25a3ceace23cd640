from weather_demo.server import main

main()
